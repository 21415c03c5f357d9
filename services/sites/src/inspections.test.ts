// Inspections (draft, sign, amend), photos, corrective actions and rain, on SQLite and PostgreSQL.
import { expect, it } from "vitest";
import { sql } from "kysely";
import { badRequestOf } from "@permits/rules";
import { CorrectiveActionFilter, CorrectiveActionStatus, InspectionStatus } from "@permits/proto/sites/v1/sites";
import { sha256Hex } from "./audit.js";
import { ACCOUNT, ACTOR, AVIF, Code, codeOf, eachDatabase, failure, HEIC, JPEG, newSite, PNG, report, WEBP } from "./testing.js";

const CERTIFICATION = "I certify under penalty of law that this document and all attachments were prepared under my direction or supervision.";

eachDatabase((h) => {
  const scoped = (siteId: string) => ({ accountId: ACCOUNT, actor: ACTOR, siteId });

  it("drafts, updates and signs an inspection; a signed one cannot change; an amendment keeps it readable", async () => {
    const siteId = await newSite(h());
    const draft = (await h().client.createInspectionDraft({ ...scoped(siteId), report: report({ summary: "first pass" }) })).inspection!;
    expect(draft).toMatchObject({ version: 1, status: InspectionStatus.DRAFT, signedBy: "", superseded: false });
    const updated = (await h().client.updateInspectionDraft({ ...scoped(siteId), inspectionId: draft.id, report: report() })).inspection!;
    expect(updated.report!.summary).toBe("One control needs maintenance.");

    h().clock.advance(3_600_000);
    const signed = (await h().client.signInspection({ ...scoped(siteId), inspectionId: draft.id, signedBy: "Sam Ito", certification: CERTIFICATION })).inspection!;
    expect(signed).toMatchObject({ version: 1, status: InspectionStatus.SIGNED, signedBy: "Sam Ito", certification: CERTIFICATION, signedAt: "2026-11-28T13:00:00.000Z" });
    expect(signed.reportSha256).toMatch(/^[0-9a-f]{64}$/);
    expect((await h().client.getSite(scoped(siteId))).site!.lastInspectedOn).toBe("2026-11-20");

    // The service refuses every change to the signed version.
    const refused = await failure(h().client.updateInspectionDraft({ ...scoped(siteId), inspectionId: draft.id, report: report({ summary: "rewritten" }) }));
    expect(refused.code).toBe(Code.FailedPrecondition);
    expect(refused.rawMessage).toBe(`inspection ${draft.id} version 1 is signed and cannot change: amend it to record a correction`);
    expect(await codeOf(h().client.signInspection({ ...scoped(siteId), inspectionId: draft.id, signedBy: "Sam Ito", certification: CERTIFICATION }))).toBe(Code.FailedPrecondition);
    expect(await codeOf(h().client.addInspectionPhoto({ ...scoped(siteId), inspectionId: draft.id, content: JPEG }))).toBe(Code.FailedPrecondition);

    // So does the database, to a hand-written statement.
    const { db } = h().database;
    await expect(sql`UPDATE inspections SET report_json = '{}' WHERE inspection_id = ${draft.id}`.execute(db)).rejects.toThrow(/a signed inspection cannot be changed|a stored record cannot be changed/);
    await expect(sql`DELETE FROM inspections WHERE inspection_id = ${draft.id}`.execute(db)).rejects.toThrow(/records are kept until the site's retention ends/);
    expect((await h().client.getInspection({ ...scoped(siteId), inspectionId: draft.id })).inspection!.report!.summary).toBe("One control needs maintenance.");

    expect(await codeOf(h().client.amendInspection({ ...scoped(siteId), inspectionId: draft.id, reason: "", report: report() }))).toBe(Code.InvalidArgument);
    const amended = (await h().client.amendInspection({ ...scoped(siteId), inspectionId: draft.id, reason: "wrong fence named", report: report({ findings: [{ id: "f1", location: "east silt fence", description: "sediment up to half the fence height", needsCorrectiveAction: true }] }) })).inspection!;
    expect(amended).toMatchObject({ id: draft.id, version: 2, status: InspectionStatus.DRAFT, amendmentReason: "wrong fence named" });
    expect(await codeOf(h().client.amendInspection({ ...scoped(siteId), inspectionId: draft.id, reason: "again", report: report() }))).toBe(Code.FailedPrecondition);
    await h().client.signInspection({ ...scoped(siteId), inspectionId: draft.id, signedBy: "Sam Ito", certification: CERTIFICATION });

    const original = (await h().client.getInspection({ ...scoped(siteId), inspectionId: draft.id, version: 1 })).inspection!;
    expect(original).toMatchObject({ version: 1, status: InspectionStatus.SIGNED, superseded: true, reportSha256: signed.reportSha256 });
    expect(original.report!.findings[0]!.location).toBe("north silt fence");
    const latest = (await h().client.getInspection({ ...scoped(siteId), inspectionId: draft.id })).inspection!;
    expect(latest).toMatchObject({ version: 2, status: InspectionStatus.SIGNED, superseded: false });
    expect(latest.report!.findings[0]!.location).toBe("east silt fence");
    expect(await codeOf(h().client.getInspection({ ...scoped(siteId), inspectionId: draft.id, version: 3 }))).toBe(Code.NotFound);

    const { inspections } = await h().client.listInspections(scoped(siteId));
    expect(inspections.map((i) => [i.version, i.status, i.superseded])).toEqual([
      [1, InspectionStatus.SIGNED, true],
      [2, InspectionStatus.SIGNED, false],
    ]);
    const actions = (await h().client.listAuditEvents(scoped(siteId))).events.map((e) => e.action);
    expect(actions).toEqual(["site.created", "inspection.drafted", "inspection.draft_updated", "inspection.signed", "inspection.amended", "inspection.signed"]);
  });

  it("refuses to sign a report with no inspector named", async () => {
    const siteId = await newSite(h());
    const draft = (await h().client.createInspectionDraft({ ...scoped(siteId), report: report({ inspector: undefined }) })).inspection!;
    const err = await failure(h().client.signInspection({ ...scoped(siteId), inspectionId: draft.id, signedBy: "Sam Ito", certification: CERTIFICATION }));
    expect(err.code).toBe(Code.FailedPrecondition);
    const missing = await failure(h().client.signInspection({ ...scoped(siteId), inspectionId: draft.id, signedBy: " ", certification: "" }));
    expect(badRequestOf(missing)!.violations.map((v) => v.field)).toEqual(["signedBy", "certification"]);
    const badReport = await failure(h().client.createInspectionDraft({ ...scoped(siteId), report: report({ inspectedOn: "20/11/2026", rainfallInches: -1, findings: [{ id: "f 1", description: "" }] }) }));
    expect(badRequestOf(badReport)!.violations.map((v) => v.field)).toEqual(["report.inspectedOn", "report.rainfallInches", "report.findings[0].id", "report.findings[0].description"]);
  });

  it("keeps photos by content type, at most 10 MB each and 20 a report", async () => {
    const siteId = await newSite(h());
    const draft = (await h().client.createInspectionDraft({ ...scoped(siteId), report: report() })).inspection!;
    const types: string[] = [];
    for (const image of [JPEG, PNG, WEBP, HEIC]) types.push((await h().client.addInspectionPhoto({ ...scoped(siteId), inspectionId: draft.id, content: image, caption: "north fence" })).photo!.contentType);
    expect(types).toEqual(["image/jpeg", "image/png", "image/webp", "image/heic"]);

    for (const notImage of [Buffer.from("GIF89a......"), AVIF, Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'/>")]) {
      const err = await failure(h().client.addInspectionPhoto({ ...scoped(siteId), inspectionId: draft.id, content: notImage }));
      expect(badRequestOf(err)!.violations[0]).toMatchObject({ field: "content", description: "the photo must be a JPEG, PNG, WebP or HEIC image (checked by its content)" });
    }
    const big = new Uint8Array(10 * 1024 * 1024 + 1);
    big.set(JPEG);
    const tooBig = await failure(h().client.addInspectionPhoto({ ...scoped(siteId), inspectionId: draft.id, content: big }));
    expect(badRequestOf(tooBig)!.violations[0]!.description).toBe("a photo must be at most 10 MB (10485760 bytes); this one is 10485761 bytes");
    const exactly = new Uint8Array(10 * 1024 * 1024);
    exactly.set(JPEG);
    const stored = (await h().client.addInspectionPhoto({ ...scoped(siteId), inspectionId: draft.id, content: exactly })).photo!;
    expect(stored.sizeBytes).toBe(10485760n);
    const back = await h().client.getInspectionPhoto({ ...scoped(siteId), photoId: stored.id });
    expect(sha256Hex(back.content)).toBe(sha256Hex(exactly));

    for (let n = 5; n < 20; n++) await h().client.addInspectionPhoto({ ...scoped(siteId), inspectionId: draft.id, content: PNG });
    const full = await failure(h().client.addInspectionPhoto({ ...scoped(siteId), inspectionId: draft.id, content: PNG }));
    expect(full.code).toBe(Code.FailedPrecondition);
    expect(full.rawMessage).toBe("an inspection keeps at most 20 photos; this one has 20");
    expect((await h().client.getInspection({ ...scoped(siteId), inspectionId: draft.id })).inspection!.photos).toHaveLength(20);
  });

  it("opens corrective actions from findings, notes and completes them, lists open and overdue", async () => {
    const siteId = await newSite(h());
    const inspection = (await h().client.createInspectionDraft({ ...scoped(siteId), report: report() })).inspection!;
    const open = (await h().client.openCorrectiveAction({ ...scoped(siteId), inspectionId: inspection.id, findingId: "f1", description: "Clean out the north silt fence", foundOn: "2026-11-20", dueOn: "2026-11-27" })).correctiveAction!;
    expect(open).toMatchObject({ status: CorrectiveActionStatus.OPEN, dueOn: "2026-11-27", findingId: "f1" });
    const later = (await h().client.openCorrectiveAction({ ...scoped(siteId), inspectionId: inspection.id, description: "Restock the spill kit", foundOn: "2026-11-20", dueOn: "2026-12-04" })).correctiveAction!;

    const unknown = await failure(h().client.openCorrectiveAction({ ...scoped(siteId), inspectionId: inspection.id, findingId: "f9", description: "x", foundOn: "2026-11-20", dueOn: "2026-11-21" }));
    expect(badRequestOf(unknown)!.violations[0]).toMatchObject({ field: "findingId", knownValues: ["f1"] });
    const backwards = await failure(h().client.openCorrectiveAction({ ...scoped(siteId), inspectionId: inspection.id, description: "x", foundOn: "2026-11-20", dueOn: "2026-11-19" }));
    expect(badRequestOf(backwards)!.violations[0]!.description).toBe("dueOn (2026-11-19) must not be before foundOn (2026-11-20)");

    const noted = (await h().client.addCorrectiveActionEvent({ ...scoped(siteId), correctiveActionId: open.id, occurredOn: "2026-11-22", note: "Crew scheduled for Monday" })).correctiveAction!;
    expect(noted.events.map((e) => [e.occurredOn, e.note, e.recordedBy])).toEqual([["2026-11-22", "Crew scheduled for Monday", ACTOR]]);

    const list = async (filter: CorrectiveActionFilter, asOf = "") => (await h().client.listCorrectiveActions({ ...scoped(siteId), filter, asOf })).correctiveActions.map((c) => c.id);
    expect(await list(CorrectiveActionFilter.OPEN)).toEqual([open.id, later.id]);
    expect(await list(CorrectiveActionFilter.OVERDUE, "2026-11-28")).toEqual([open.id]);
    expect(await list(CorrectiveActionFilter.OVERDUE, "2026-11-27")).toEqual([]);
    expect(await codeOf(h().client.listCorrectiveActions({ ...scoped(siteId), filter: CorrectiveActionFilter.OVERDUE }))).toBe(Code.InvalidArgument);

    const done = (await h().client.completeCorrectiveAction({ ...scoped(siteId), correctiveActionId: open.id, completedOn: "2026-11-24", note: "Sediment removed, fence re-staked" })).correctiveAction!;
    expect(done).toMatchObject({ status: CorrectiveActionStatus.COMPLETED, completedOn: "2026-11-24" });
    expect(done.events.map((e) => e.note)).toEqual(["Crew scheduled for Monday", "Sediment removed, fence re-staked"]);
    expect(await list(CorrectiveActionFilter.OVERDUE, "2026-12-31")).toEqual([later.id]);
    expect(await list(CorrectiveActionFilter.UNSPECIFIED)).toEqual([open.id, later.id]);
    expect(await codeOf(h().client.completeCorrectiveAction({ ...scoped(siteId), correctiveActionId: open.id, completedOn: "2026-11-25", note: "again" }))).toBe(Code.FailedPrecondition);
    await expect(h().database.db.updateTable("corrective_actions").set({ status: "open" }).where("id", "=", open.id).execute()).rejects.toThrow(/cannot be changed/);
  });

  it("records rain events by hand, oldest first", async () => {
    const siteId = await newSite(h());
    await h().client.addRainEvent({ ...scoped(siteId), occurredOn: "2026-11-21", inches: 0.6, measuredBy: "on-site rain gauge" });
    await h().client.addRainEvent({ ...scoped(siteId), occurredOn: "2026-11-19", inches: 0.25, measuredBy: "NWS station KPAE" });
    const { rainEvents } = await h().client.listRainEvents(scoped(siteId));
    expect(rainEvents.map((r) => [r.occurredOn, r.inches, r.measuredBy])).toEqual([
      ["2026-11-19", 0.25, "NWS station KPAE"],
      ["2026-11-21", 0.6, "on-site rain gauge"],
    ]);
    const bad = await failure(h().client.addRainEvent({ ...scoped(siteId), occurredOn: "2026-13-01", inches: 51, measuredBy: "" }));
    expect(badRequestOf(bad)!.violations.map((v) => v.field)).toEqual(["occurredOn", "inches", "measuredBy"]);
  });
});
