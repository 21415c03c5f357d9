// Sites, determinations, plan versions and field validation, on SQLite and on PostgreSQL.
import { expect, it } from "vitest";
import { badRequestOf } from "@permits/rules";
import { PlanFormat } from "@permits/proto/sites/v1/sites";
import { sha256Hex } from "./audit.js";
import { ACCOUNT, ACTOR, answer, Code, codeOf, DOCX, eachDatabase, failure, newSite, PDF, siteDetails } from "./testing.js";

eachDatabase((h) => {
  it("creates, reads, lists and updates a site, each change an audit event", async () => {
    const { site } = await h().client.createSite({ accountId: ACCOUNT, actor: ACTOR, details: siteDetails() });
    expect(site!.id).toMatch(/^site_[0-9a-f]{32}$/);
    expect(site!.details!.name).toBe("Maple Street townhomes");
    expect(site!.details!.input!.disturbedAcres).toBe(4.5);
    expect(site!.details!.input!.dischargesToImpairedWater).toBe(false);
    expect(site!.details!.input!.dischargesToTier2Water).toBeUndefined();
    expect(site!.details!.location!.latitude).toBe(47.979);
    expect(site!.createdAt).toBe("2026-11-28T12:00:00.000Z");
    expect(site!.closedOn).toBeUndefined();

    const got = await h().client.getSite({ accountId: ACCOUNT, actor: ACTOR, siteId: site!.id });
    expect(got.site).toEqual(site);

    h().clock.advance(60_000);
    const details = siteDetails();
    details.name = "Maple Street townhomes, phase 2";
    details.input!.disturbedAcres = 6;
    const { site: updated } = await h().client.updateSite({ accountId: ACCOUNT, actor: "key_live_1 (Sam Ito)", siteId: site!.id, details });
    expect(updated!.details!.name).toBe("Maple Street townhomes, phase 2");
    expect(updated!.details!.input!.disturbedAcres).toBe(6);
    expect(updated!.updatedAt).toBe("2026-11-28T12:01:00.000Z");
    expect(updated!.createdAt).toBe("2026-11-28T12:00:00.000Z");

    const { sites } = await h().client.listSites({ accountId: ACCOUNT, actor: ACTOR });
    expect(sites.find((s) => s.id === site!.id)?.details?.name).toBe("Maple Street townhomes, phase 2");

    const trail = await h().client.listAuditEvents({ accountId: ACCOUNT, actor: ACTOR, siteId: site!.id });
    expect(trail.events.map((e) => [Number(e.seq), e.action, e.actor])).toEqual([
      [1, "site.created", ACTOR],
      [2, "site.updated", "key_live_1 (Sam Ito)"],
    ]);
    expect(trail.events[0]!.prevHash).toBe("0".repeat(64));
    expect(trail.events[1]!.prevHash).toBe(trail.events[0]!.hash);
    expect(trail.chainIntact).toBe(true);
    expect(JSON.parse(trail.events[1]!.detailJson).details.name).toBe("Maple Street townhomes, phase 2");
  });

  it("lists the account's sites newest first", async () => {
    const account = `acct_list_${h().database.kind}`;
    const ids: string[] = [];
    for (let n = 0; n < 3; n++) {
      h().clock.advance(1000);
      const d = siteDetails();
      d.name = `Site ${n}`;
      ids.push((await h().client.createSite({ accountId: account, actor: ACTOR, details: d })).site!.id);
    }
    const { sites } = await h().client.listSites({ accountId: account, actor: ACTOR });
    expect(sites.map((s) => s.details!.name)).toEqual(["Site 2", "Site 1", "Site 0"]);
    expect(sites.map((s) => s.id)).toEqual(ids.reverse());
  });

  it("refuses bad fields with InvalidArgument naming each one", async () => {
    const d = siteDetails();
    d.name = "";
    d.input = { state: "Washington", activity: "demolition", disturbedAcres: 2, maxDisturbedAcresAtOneTime: 3, startDate: "2026-02-30" };
    d.location = { address: "", latitude: 95 };
    d.operator = { name: "Dana", email: "not an email" };
    d.contacts = [{ name: "" }];
    const err = await failure(h().client.createSite({ accountId: ACCOUNT, actor: ACTOR, details: d }));
    expect(err.code).toBe(Code.InvalidArgument);
    expect(badRequestOf(err)!.violations.map((v) => v.field)).toEqual([
      "details.name",
      "details.input.state",
      "details.input.activity",
      "details.input.maxDisturbedAcresAtOneTime",
      "details.input.startDate",
      "details.location",
      "details.location.latitude",
      "details.operator.email",
      "details.contacts[0].name",
    ]);
    const noCaller = await failure(h().client.createSite({ accountId: "", actor: "", details: siteDetails() }));
    expect(badRequestOf(noCaller)!.violations.map((v) => v.field)).toEqual(["accountId", "actor"]);
    const tooLong = siteDetails();
    tooLong.name = "x".repeat(201);
    expect(badRequestOf(await failure(h().client.createSite({ accountId: ACCOUNT, actor: ACTOR, details: tooLong })))!.violations[0]!.description).toBe("details.name must be at most 200 characters (got 201)");
    expect(await codeOf(h().client.getSite({ accountId: ACCOUNT, actor: ACTOR, siteId: "" }))).toBe(Code.InvalidArgument);
    // PostgreSQL's text holds no U+0000: refused as a field error on both databases, never a failure.
    const nul = await failure(h().client.listSites({ accountId: "acct\u0000x", actor: ACTOR }));
    expect(badRequestOf(nul)!.violations.map((v) => v.description)).toEqual(["accountId must not contain a NUL character"]);
    expect(await codeOf(h().client.getSite({ accountId: ACCOUNT, actor: ACTOR, siteId: "site_nope" }))).toBe(Code.NotFound);
  });

  it("keeps a determination snapshot byte for byte with its dataset and permit versions", async () => {
    const siteId = await newSite(h());
    expect(await codeOf(h().client.getDetermination({ accountId: ACCOUNT, actor: ACTOR, siteId }))).toBe(Code.NotFound);
    const bytes = answer({ id: "retention.swppp", years: 3, unit: "years after termination" });
    const { determination } = await h().client.saveDetermination({ accountId: ACCOUNT, actor: ACTOR, siteId, answerJson: bytes });
    expect(determination!.datasetVersion).toBe("2026-11-26.0c7761e066");
    expect(determination!.permitId).toBe("wa-cswgp");
    expect(determination!.permitVersion).toBe("2025-11-19");
    expect(determination!.sha256).toBe(sha256Hex(bytes));
    const got = await h().client.getDetermination({ accountId: ACCOUNT, actor: ACTOR, siteId });
    expect(Buffer.from(got.determination!.answerJson).equals(Buffer.from(bytes))).toBe(true);

    for (const [bad, description] of [
      [Buffer.from("{not json"), "answerJson is not JSON text"],
      [Buffer.from("[1,2]"), "answerJson must be a stormwater determination (a JSON object)"],
      [Buffer.from('{"coverage":"required"}'), "answerJson has no datasetVersion: save the determination as the stormwater service answered it"],
      [Buffer.from('{"datasetVersion":"v","permit":{"id":1}}'), "answerJson's permit must have an id and a version"],
    ] as const) {
      const err = await failure(h().client.saveDetermination({ accountId: ACCOUNT, actor: ACTOR, siteId, answerJson: bad }));
      expect(err.code).toBe(Code.InvalidArgument);
      expect(badRequestOf(err)!.violations[0]).toMatchObject({ field: "answerJson", description });
    }
  });

  it("stores plan versions whole, numbered, and answers each document as stored", async () => {
    const siteId = await newSite(h());
    const { determination } = await h().client.saveDetermination({ accountId: ACCOUNT, actor: ACTOR, siteId, answerJson: answer() });
    const v1 = (await h().client.addPlanVersion({ accountId: ACCOUNT, actor: ACTOR, siteId, docx: DOCX, pdf: PDF, note: "first plan", determinationId: determination!.id })).plan!;
    const docx2 = Uint8Array.from([...DOCX, 0x32]);
    const v2 = (await h().client.addPlanVersion({ accountId: ACCOUNT, actor: ACTOR, siteId, docx: docx2, pdf: PDF, note: "added the dewatering section" })).plan!;
    expect([v1.version, v2.version]).toEqual([1, 2]);
    expect(v1).toMatchObject({ note: "first plan", determinationId: determination!.id, docxBytes: BigInt(DOCX.length), pdfSha256: sha256Hex(PDF), createdBy: ACTOR });

    const { plans } = await h().client.listPlanVersions({ accountId: ACCOUNT, actor: ACTOR, siteId });
    expect(plans.map((p) => [p.version, p.note])).toEqual([
      [1, "first plan"],
      [2, "added the dewatering section"],
    ]);
    const doc = await h().client.getPlanDocument({ accountId: ACCOUNT, actor: ACTOR, siteId, planId: v2.id, format: PlanFormat.DOCX });
    expect(Buffer.from(doc.content).equals(Buffer.from(docx2))).toBe(true);
    expect(doc.contentType).toBe("application/vnd.openxmlformats-officedocument.wordprocessingml.document");
    const pdf = await h().client.getPlanDocument({ accountId: ACCOUNT, actor: ACTOR, siteId, planId: v1.id, format: PlanFormat.PDF });
    expect(pdf.sha256).toBe(sha256Hex(PDF));

    const bad = await failure(h().client.addPlanVersion({ accountId: ACCOUNT, actor: ACTOR, siteId, docx: PDF, pdf: DOCX }));
    expect(badRequestOf(bad)!.violations.map((v) => [v.field, v.description])).toEqual([
      ["docx", "docx is not a Word document (.docx)"],
      ["pdf", "pdf is not a PDF"],
    ]);
    expect(await codeOf(h().client.addPlanVersion({ accountId: ACCOUNT, actor: ACTOR, siteId, docx: DOCX, pdf: PDF, determinationId: "det_nope" }))).toBe(Code.NotFound);
    expect(await codeOf(h().client.getPlanDocument({ accountId: ACCOUNT, actor: ACTOR, siteId, planId: v1.id }))).toBe(Code.InvalidArgument);

    // The database refuses to rewrite or delete a stored plan, whoever asks.
    await expect(h().database.db.updateTable("plan_versions").set({ note: "rewritten" }).where("id", "=", v1.id).execute()).rejects.toThrow(/plan_versions: a stored record cannot be changed/);
    await expect(h().database.db.deleteFrom("plan_versions").where("id", "=", v1.id).execute()).rejects.toThrow(/records are kept until the site's retention ends/);
  });

  it("rejects a huge input as InvalidArgument, not a failure", async () => {
    const siteId = await newSite(h());
    const err = await failure(h().client.saveDetermination({ accountId: ACCOUNT, actor: ACTOR, siteId, answerJson: new Uint8Array(2 * 1024 * 1024 + 1) }));
    expect(err.code).toBe(Code.InvalidArgument);
    expect(err.rawMessage).toBe("answerJson must be at most 2097152 bytes (got 2097153)");
  });
});
