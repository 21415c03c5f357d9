// The audit chain, the export, retention and the purge, on SQLite and on PostgreSQL.
import { expect, it } from "vitest";
import { sql } from "kysely";
import { strFromU8, strToU8, unzipSync, zipSync } from "fflate";
import { sha256Hex, verifyChain } from "./audit.js";
import { verifyExport } from "./export.js";
import { ACCOUNT, ACTOR, answer, Code, codeOf, DOCX, eachDatabase, failure, JPEG, newSite, NOW, PDF, report } from "./testing.js";

eachDatabase((h) => {
  const scoped = (siteId: string) => ({ accountId: ACCOUNT, actor: ACTOR, siteId });

  async function fullSite(): Promise<string> {
    const c = h().client;
    const siteId = await newSite(h());
    await c.saveDetermination({ ...scoped(siteId), answerJson: answer() });
    await c.addPlanVersion({ ...scoped(siteId), docx: DOCX, pdf: PDF, note: "first plan" });
    const inspection = (await c.createInspectionDraft({ ...scoped(siteId), report: report() })).inspection!;
    await c.addInspectionPhoto({ ...scoped(siteId), inspectionId: inspection.id, content: JPEG, caption: "north fence" });
    await c.signInspection({ ...scoped(siteId), inspectionId: inspection.id, signedBy: "Sam Ito", certification: "I certify under penalty of law." });
    await c.openCorrectiveAction({ ...scoped(siteId), inspectionId: inspection.id, findingId: "f1", description: "Clean the fence", foundOn: "2026-11-20", dueOn: "2026-11-27" });
    await c.addRainEvent({ ...scoped(siteId), occurredOn: "2026-11-19", inches: 0.4, measuredBy: "on-site rain gauge" });
    return siteId;
  }

  it("exports the whole record as a ZIP whose manifest hashes every file, the same bytes each time", async () => {
    const siteId = await fullSite();
    const first = await h().client.exportSite(scoped(siteId));
    const second = await h().client.exportSite(scoped(siteId));
    expect(Buffer.from(first.zip).equals(Buffer.from(second.zip))).toBe(true);
    expect(first.sha256).toBe(sha256Hex(first.zip));
    expect(first.fileName).toBe(`${siteId}-export.zip`);

    const files = unzipSync(first.zip);
    const names = Object.keys(files).map((n) => n.replace(/_[0-9a-f]{32}/g, "_ID"));
    expect(names).toEqual([
      "site.json",
      "determinations/det_ID.json",
      "determinations/det_ID.answer.json",
      "plans/v1.json",
      "plans/v1.docx",
      "plans/v1.pdf",
      "inspections/insp_ID-v1.json",
      "photos/photo_ID.jpg",
      "corrective-actions.json",
      "rain-events.json",
      "audit.json",
      "manifest.json",
    ]);
    const manifest = JSON.parse(strFromU8(files["manifest.json"]!)) as { siteId: string; files: Record<string, string> };
    expect(manifest.siteId).toBe(siteId);
    for (const [name, hash] of Object.entries(manifest.files)) expect(sha256Hex(files[name]!), name).toBe(hash);
    expect(Object.keys(manifest.files)).toHaveLength(11);
    expect(Buffer.from(files["plans/v1.pdf"]!).equals(Buffer.from(PDF))).toBe(true);
    expect(JSON.parse(strFromU8(files["site.json"]!)).details.name).toBe("Maple Street townhomes");
    const audit = JSON.parse(strFromU8(files["audit.json"]!));
    expect(audit.map((e: { action: string }) => e.action)).toEqual(["site.created", "determination.saved", "plan.added", "inspection.drafted", "photo.added", "inspection.signed", "corrective_action.opened", "rain.recorded"]);
    expect(verifyExport(first.zip)).toEqual({ ok: true, problems: [] });
  });

  it("shows a tampered export and a tampered database row", async () => {
    const siteId = await fullSite();
    const files = unzipSync((await h().client.exportSite(scoped(siteId))).zip);
    // An event's actor rewritten in audit.json, with the manifest hash updated to hide it: the chain still shows it.
    const audit = JSON.parse(strFromU8(files["audit.json"]!));
    audit[2].actor = "someone else";
    const forged = strToU8(JSON.stringify(audit));
    const manifest = JSON.parse(strFromU8(files["manifest.json"]!));
    manifest.files["audit.json"] = sha256Hex(forged);
    const check = verifyExport(zipSync({ ...files, "audit.json": forged, "manifest.json": strToU8(JSON.stringify(manifest)) }));
    expect(check).toEqual({ ok: false, problems: ["the audit trail's hash chain breaks at event 3"] });
    // A photo swapped without touching the manifest.
    const photo = Object.keys(files).find((n) => n.startsWith("photos/"))!;
    expect(verifyExport(zipSync({ ...files, [photo]: Uint8Array.from([...JPEG, 0]) })).problems).toEqual([`${photo} does not match its hash in the manifest`]);
    expect(verifyExport(strToU8("not a zip")).problems).toEqual(["the file is not a ZIP archive"]);

    // Whoever can drop the guard can rewrite a row; the chain still tells.
    const { db, kind } = h().database;
    if (kind === "sqlite") {
      await sql`DROP TRIGGER audit_events_no_update`.execute(db);
      await sql`UPDATE audit_events SET actor = 'someone else' WHERE site_id = ${siteId} AND seq = 4`.execute(db);
      await sql`CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events BEGIN SELECT RAISE(ABORT, 'audit_events: a stored record cannot be changed'); END`.execute(db);
    } else {
      await sql`ALTER TABLE audit_events DISABLE TRIGGER audit_events_no_update`.execute(db);
      await sql`UPDATE audit_events SET actor = 'someone else' WHERE site_id = ${siteId} AND seq = 4`.execute(db);
      await sql`ALTER TABLE audit_events ENABLE TRIGGER audit_events_no_update`.execute(db);
    }
    const trail = await h().client.listAuditEvents(scoped(siteId));
    expect(trail.chainIntact).toBe(false);
    expect(trail.firstBrokenSeq).toBe(4n);
    expect(verifyExport((await h().client.exportSite(scoped(siteId))).zip).problems).toEqual(["the audit trail's hash chain breaks at event 4"]);
    // With the guard in place the same statement is refused.
    await expect(sql`UPDATE audit_events SET actor = 'x' WHERE site_id = ${siteId}`.execute(db)).rejects.toThrow(/audit_events: a stored record cannot be changed/);
    await expect(sql`DELETE FROM audit_events WHERE site_id = ${siteId}`.execute(db)).rejects.toThrow(/kept until the site's retention ends/);
    expect(verifyChain([])).toEqual({ intact: true, firstBrokenSeq: 0 });
  });

  it("closes a site: three years after the close date, read-only, deletion refused", async () => {
    const siteId = await fullSite();
    const early = await failure(h().client.closeSite({ ...scoped(siteId), closedOn: "2026-11-29" }));
    expect(early.rawMessage).toBe("closedOn (2026-11-29) must not be after today (2026-11-28)");
    const { site } = await h().client.closeSite({ ...scoped(siteId), closedOn: "2026-11-28" });
    expect(site!.closedOn).toBe("2026-11-28");
    expect(site!.retention).toMatchObject({ retainUntil: "2029-11-28", requirementId: "" });
    expect(site!.retention!.basis).toBe(
      "Kept three years after the close date 2026-11-28, the federal construction permit's period, which this service keeps for every site. The saved determination holds no longer period for the site's permit.",
    );
    const readOnly = await failure(h().client.addRainEvent({ ...scoped(siteId), occurredOn: "2026-11-28", inches: 1, measuredBy: "gauge" }));
    expect(readOnly.code).toBe(Code.FailedPrecondition);
    expect(readOnly.rawMessage).toBe("the site was closed on 2026-11-28: its records are kept read-only until 2029-11-28");
    expect(await codeOf(h().client.closeSite({ ...scoped(siteId), closedOn: "2026-11-28" }))).toBe(Code.FailedPrecondition);
    // Reads and exports go on.
    expect(verifyExport((await h().client.exportSite(scoped(siteId))).zip).ok).toBe(true);

    const { db } = h().database;
    await expect(sql`DELETE FROM sites WHERE id = ${siteId}`.execute(db)).rejects.toThrow(/kept until the site's retention ends/);
    await expect(sql`DELETE FROM photos WHERE site_id = ${siteId}`.execute(db)).rejects.toThrow(/kept until the site's retention ends/);
    // Shortening the retention by hand to make a delete pass is refused too.
    await expect(sql`UPDATE sites SET retain_until = '2020-01-01' WHERE id = ${siteId}`.execute(db)).rejects.toThrow(/a closed site cannot change/);
    expect(await h().client.purgeExpired({ actor: "admin" })).toMatchObject({ purgedSiteIds: [] });
    expect((await h().client.getSite(scoped(siteId))).site!.id).toBe(siteId);
  });

  it("keeps a site's records longer when its permit asks, and says on what basis", async () => {
    h().clock.set(Date.parse("2025-04-01T10:00:00Z"));
    const siteId = await newSite(h());
    h().clock.set(Date.parse(NOW));
    await h().client.saveDetermination({ ...scoped(siteId), answerJson: answer({ id: "retention.records", years: 5, unit: "years" }) });
    const { site } = await h().client.closeSite({ ...scoped(siteId), closedOn: "2026-02-28" });
    expect(site!.retention).toMatchObject({ retainUntil: "2031-02-28", requirementId: "retention.records" });
    expect(site!.retention!.basis).toBe(
      'Kept 5 years after the close date 2026-02-28: the site\'s permit (Construction Stormwater General Permit) asks for 5 years ("Record retention", retention.records, held as unverified in the saved determination), longer than the federal permit\'s three years.',
    );
    const equal = await newSite(h());
    await h().client.saveDetermination({ ...scoped(equal), answerJson: answer({ id: "retention.swppp", years: 3, unit: "years after termination" }) });
    const before = await failure(h().client.closeSite({ ...scoped(equal), closedOn: "2026-11-01" }));
    expect(before.rawMessage).toBe("closedOn (2026-11-01) must not be before the site was created (2026-11-28)");
    const closed = (await h().client.closeSite({ ...scoped(equal), closedOn: "2026-11-28" })).site!;
    expect(closed.retention).toMatchObject({ retainUntil: "2029-11-28", requirementId: "" });
    expect(closed.retention!.basis).toContain('the site\'s permit (Construction Stormwater General Permit) states 3 years too ("Record retention", retention.swppp, held as unverified)');
  });

  it("purges only the sites whose retention ended, with every record of them", async () => {
    // A site entered in 2019 and closed on 2020-01-15: kept until 2023-01-15, so purgeable now.
    h().clock.set(Date.parse("2019-06-01T10:00:00Z"));
    const old = await fullSite();
    h().clock.set(Date.parse("2020-01-15T10:00:00Z"));
    await h().client.closeSite({ ...scoped(old), closedOn: "2020-01-15" });
    h().clock.set(Date.parse(NOW));
    const kept = await fullSite();
    await h().client.closeSite({ ...scoped(kept), closedOn: "2026-11-28" });

    const { purgedSiteIds } = await h().client.purgeExpired({ actor: "admin (ops)" });
    expect(purgedSiteIds).toEqual([old]);
    expect(await codeOf(h().client.getSite(scoped(old)))).toBe(Code.NotFound);
    const { db } = h().database;
    for (const table of ["audit_events", "photos", "inspections", "plan_versions", "determinations", "rain_events", "corrective_actions"] as const) {
      const left = await db.selectFrom(table).select(db.fn.countAll<number | string>().as("n")).where("site_id", "=", old).executeTakeFirstOrThrow();
      expect(Number(left.n), table).toBe(0);
    }
    expect((await h().client.listAuditEvents(scoped(kept))).chainIntact).toBe(true);
    expect(await codeOf(h().client.purgeExpired({ actor: "" }))).toBe(Code.InvalidArgument);
  });
});
