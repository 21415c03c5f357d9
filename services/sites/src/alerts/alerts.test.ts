// Rule changes and deadline warnings on SQLite and PostgreSQL: a site whose saved answer (or whose
// latest plan's) cites a changed fact is marked once, with one site.rules_changed event; a site
// citing none is not; saving a determination clears the mark. The deadline sweep records each
// warning once however many sweeps see it, as a manual clock moves.
import { create } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { sql } from "kysely";
import { expect, it } from "vitest";
import { Confidence, FactChangeGroupSchema, FactChangeKind, FactChangesSchema, FactStateSchema } from "@permits/proto/common/v1/common";
import { ACCOUNT, ACTOR, Code, codeOf, DOCX, eachDatabase, type Harness, PDF, report, siteDetails } from "../testing.js";
import { SWEEP_LOCK, sweepDeadlines } from "./sweep.js";

const CERTIFICATION = "I certify under penalty of law that this document and all attachments were prepared under my direction or supervision.";
const FACT = "jurisdictions/TX/statePermits/tx-txr150000/requirements/inspection.frequency/citation";
const DAY = 86_400_000;

/** A stored answer as the gateway saves it (proto JSON of document 1's Determination). */
function answerJson(over: { state: string; permitId: string; requirements?: string[]; datasetVersion: string; expiryDate?: string }): Uint8Array {
  return Buffer.from(JSON.stringify({
    coverage: "COVERAGE_REQUIRED",
    permit: { id: over.permitId, name: `Permit ${over.permitId}`, version: "2023", authority: "state agency", confidence: "CONFIDENCE_VERIFIED", ...(over.expiryDate ? { expiryDate: over.expiryDate } : {}) },
    jurisdiction: { code: over.state, name: over.state },
    requirements: (over.requirements ?? []).map((id) => ({ id, label: id, detail: `${id} words` })),
    datasetVersion: over.datasetVersion,
  }));
}

const days = (n: number) => create(ValueSchema, { kind: { case: "numberValue", value: n } });
const changesSince = (since: string, current: string) =>
  create(FactChangesSchema, {
    dataset: "stormwater",
    since,
    currentVersion: current,
    changeCount: 1,
    groups: [
      create(FactChangeGroupSchema, {
        kind: "jurisdiction",
        id: "TX",
        changes: [{ fact: FACT, change: FactChangeKind.CHANGED, datasetVersion: current, before: create(FactStateSchema, { value: days(7), confidence: Confidence.UNVERIFIED, sourceCitation: "TXR150000 Part III.F.7", sourceUrl: "https://www.tceq.texas.gov/" }), after: create(FactStateSchema, { value: days(14), confidence: Confidence.UNVERIFIED, sourceCitation: "TXR150000 Part III.F.7", sourceUrl: "https://www.tceq.texas.gov/" }) }],
      }),
    ],
  });

async function siteWith(h: Harness, name: string, answer: Uint8Array, account = ACCOUNT): Promise<string> {
  const { site } = await h.client.createSite({ accountId: account, actor: ACTOR, details: { ...siteDetails(), name } });
  await h.client.saveDetermination({ accountId: account, actor: ACTOR, siteId: site!.id, answerJson: answer });
  return site!.id;
}

async function eventsOf(h: Harness, siteId: string, type: string) {
  return h.database.db.selectFrom("site_events").select(["type", "dedup_key", "data_json"]).where("site_id", "=", siteId).where("type", "=", type).execute();
}

eachDatabase((h) => {
  const w = (siteId: string) => ({ accountId: ACCOUNT, actor: ACTOR, siteId });

  it("marks the site citing the changed requirement once, with one event; not the site citing none; a saved determination clears it", async () => {
    const c = h().client;
    const tx = await siteWith(h(), "Texas yard", answerJson({ state: "TX", permitId: "tx-txr150000", requirements: ["inspection.frequency", "filing.noi"], datasetVersion: "2026-11-01.aaaa" }));
    const wa = await siteWith(h(), "Everett lots", answerJson({ state: "WA", permitId: "wa-cswgp", requirements: ["inspection.frequency"], datasetVersion: "2026-11-01.aaaa" }));
    expect((await c.listCitedDatasetVersions({})).datasetVersions).toContain("2026-11-01.aaaa");

    const request = { datasetVersion: "2026-11-20.bbbb", changes: [changesSince("2026-11-01.aaaa", "2026-11-20.bbbb")] };
    expect((await c.markRulesChanged(request)).marked).toBe(1);
    expect((await c.markRulesChanged(request)).marked).toBe(0); // a restart, a second gateway: nothing twice

    const [mark] = (await c.listRulesChanges(w(tx))).rulesChanges;
    expect([mark.previousVersion, mark.datasetVersion, mark.markedAt, mark.changes.map((x) => [x.fact, x.before?.value?.kind.value, x.after?.value?.kind.value, x.after?.sourceUrl])]).toEqual([
      "2026-11-01.aaaa", "2026-11-20.bbbb", "2026-11-28T12:00:00.000Z", [[FACT, 7, 14, "https://www.tceq.texas.gov/"]],
    ]);
    expect((await c.listRulesChanges(w(wa))).rulesChanges).toEqual([]);
    const events = await eventsOf(h(), tx, "site.rules_changed");
    expect(events.map((e) => e.dedup_key)).toEqual([`site.rules_changed:${tx}:2026-11-20.bbbb`]);
    expect(JSON.parse(events[0].data_json)).toMatchObject({
      site: { id: tx, name: "Texas yard" },
      previousVersion: "2026-11-01.aaaa",
      datasetVersion: "2026-11-20.bbbb",
      changes: [{
        fact: FACT,
        change: "changed",
        datasetVersion: "2026-11-20.bbbb",
        before: { value: 7, basis: "unsourced", confidence: "unverified", checkedOn: null, sourceCitation: "TXR150000 Part III.F.7", sourceUrl: "https://www.tceq.texas.gov/", quote: null },
        after: { value: 14, basis: "unsourced", confidence: "unverified", checkedOn: null, sourceCitation: "TXR150000 Part III.F.7", sourceUrl: "https://www.tceq.texas.gov/", quote: null },
      }],
    });
    expect(await eventsOf(h(), wa, "site.rules_changed")).toEqual([]);
    const dashboard = (await c.listSitesForDashboard({ accountId: ACCOUNT, actor: ACTOR, asOf: "2026-11-28" })).sites;
    expect(dashboard.filter((s) => s.rulesChanges.length > 0).map((s) => s.site!.id)).toEqual([tx]);
    const trail = (await c.listAuditEvents(w(tx))).events.map((e) => [e.action, e.actor]);
    expect(trail.at(-1)).toEqual(["rules.changed", "permits service (rules check)"]);

    // Regenerating saves an answer of the data loaded now: the mark is cleared, and stays so.
    await c.saveDetermination({ ...w(tx), answerJson: answerJson({ state: "TX", permitId: "tx-txr150000", requirements: ["inspection.frequency"], datasetVersion: "2026-11-20.bbbb" }) });
    expect((await c.listRulesChanges(w(tx))).rulesChanges).toEqual([]);
    expect((await c.markRulesChanged(request)).marked).toBe(0);
    expect(await eventsOf(h(), tx, "site.rules_changed")).toHaveLength(1);
  });

  it("marks a site whose latest plan cites an older answer that cites the change, though its latest answer is current", async () => {
    const c = h().client;
    const site = await siteWith(h(), "Planned in October", answerJson({ state: "TX", permitId: "tx-txr150000", requirements: ["inspection.frequency"], datasetVersion: "2026-10-01.cccc" }));
    const planned = (await c.getDetermination(w(site))).determination!;
    await c.addPlanVersion({ ...w(site), docx: DOCX, pdf: PDF, note: "v1", determinationId: planned.id });
    h().clock.advance(1000); // the later answer is saved later
    await c.saveDetermination({ ...w(site), answerJson: answerJson({ state: "TX", permitId: "tx-txr150000", requirements: [], datasetVersion: "2026-11-21.dddd" }) });
    expect((await c.listCitedDatasetVersions({})).datasetVersions).toEqual(expect.arrayContaining(["2026-10-01.cccc", "2026-11-21.dddd"]));
    expect((await c.markRulesChanged({ datasetVersion: "2026-11-21.dddd", changes: [changesSince("2026-10-01.cccc", "2026-11-21.dddd")] })).marked).toBe(1);
    expect((await c.listRulesChanges(w(site))).rulesChanges.map((m) => m.previousVersion)).toEqual(["2026-10-01.cccc"]);
  });

  it("refuses changes that are not of the version it is told is loaded", async () => {
    expect(await codeOf(h().client.markRulesChanged({ datasetVersion: "v9", changes: [changesSince("v1", "v2")] }))).toBe(Code.InvalidArgument);
    expect(await codeOf(h().client.markRulesChanged({ datasetVersion: "", changes: [] }))).toBe(Code.InvalidArgument);
  });

  it("records an overdue inspection, an overdue corrective action and an expiring permit once each, however many sweeps run", async () => {
    const c = h().client;
    const clock = h().clock;
    const ctx = { db: h().database.db, kind: h().database.kind, clock };
    // Expires before the site's end date (2027-06-30).
    const site = await siteWith(h(), "Swept site", answerJson({ state: "WA", permitId: "wa-cswgp", datasetVersion: "2026-11-01.aaaa", expiryDate: "2027-03-31" }));
    await c.updateSite({ ...w(site), details: { ...siteDetails(), name: "Swept site", inspectionFrequency: { everyDays: 7 } } });
    const draft = (await c.createInspectionDraft({ ...w(site), report: report({ inspectedOn: "2026-11-25", stormTriggered: false }) })).inspection!;
    await c.signInspection({ ...w(site), inspectionId: draft.id, signedBy: "Sam Ito", certification: CERTIFICATION });
    const action = (await c.openCorrectiveAction({ ...w(site), inspectionId: draft.id, findingId: "f1", description: "Repair the north silt fence", foundOn: "2026-11-25", dueOn: "2026-11-30" })).correctiveAction!;

    await sweepDeadlines(ctx); // 2026-11-28: only the permit
    expect((await eventsOf(h(), site, "site.permit_expiring")).map((e) => e.dedup_key)).toEqual([`site.permit_expiring:${site}:wa-cswgp:2027-03-31`]);
    expect(await eventsOf(h(), site, "inspection.overdue")).toEqual([]);

    clock.advance(5 * DAY); // 2026-12-03: the routine inspection due 2026-12-02 and the action due 2026-11-30 are overdue
    for (let i = 0; i < 3; i++) await sweepDeadlines(ctx);
    clock.advance(DAY / 2);
    await sweepDeadlines(ctx);
    const overdue = await eventsOf(h(), site, "inspection.overdue");
    expect(overdue.map((e) => e.dedup_key)).toEqual([`inspection.overdue:${site}:routine:2026-12-02`]);
    expect(JSON.parse(overdue[0].data_json)).toMatchObject({ site: { id: site, name: "Swept site" }, what: "routine", due: "2026-12-02" });
    const late = await eventsOf(h(), site, "corrective_action.overdue");
    expect(late.map((e) => [e.dedup_key, JSON.parse(e.data_json).description])).toEqual([[`corrective_action.overdue:${site}:${action.id}:2026-11-30`, "Repair the north silt fence"]]);
    expect(await eventsOf(h(), site, "site.permit_expiring")).toHaveLength(1);
  });

  it("sweeps running at once record each condition once; on PostgreSQL a sweep skips while another replica holds the lock", async () => {
    const c = h().client;
    const ctx = { db: h().database.db, kind: h().database.kind, clock: h().clock };
    const site = await siteWith(h(), "Raced site", answerJson({ state: "WA", permitId: "wa-cswgp", datasetVersion: "2026-11-01.aaaa", expiryDate: "2027-01-20" }));
    const draft = (await c.createInspectionDraft({ ...w(site), report: report() })).inspection!;
    await c.openCorrectiveAction({ ...w(site), inspectionId: draft.id, findingId: "f1", description: "Sweep the entrance", foundOn: "2026-11-20", dueOn: "2026-11-21" });
    const results = await Promise.all([0, 1, 2].map(() => sweepDeadlines(ctx)));
    expect(results.reduce((n, r) => n + r.recorded, 0)).toBeGreaterThanOrEqual(2);
    expect((await eventsOf(h(), site, "corrective_action.overdue")).length).toBe(1);
    expect((await eventsOf(h(), site, "site.permit_expiring")).length).toBe(1);
    if (h().database.kind !== "postgres") return;
    await h().database.db.connection().execute(async (other) => {
      await sql`select pg_advisory_lock(${SWEEP_LOCK})`.execute(other);
      try {
        expect(await sweepDeadlines(ctx)).toEqual({ swept: false, sites: 0, recorded: 0 });
      } finally {
        await sql`select pg_advisory_unlock(${SWEEP_LOCK})`.execute(other);
      }
    });
    expect((await sweepDeadlines(ctx)).swept).toBe(true);
  });
});
