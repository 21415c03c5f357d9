// Sites that keep up with their rules, end to end on the embedded deployment: two dataset versions
// in a temporary DATA_DIR, the second changing one requirement a Texas site cites. When the
// gateway starts listening on the second, the Texas site is marked, one site.rules_changed row is
// in the outbox and one arrives, signed, at the account's webhook receiver on 127.0.0.1; a
// Washington site, which does not cite it, is not marked. A restart marks nothing again;
// regenerating the plan clears the mark. Then a manual clock makes an inspection overdue: one
// event, however many sweeps run.
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { Value } from "@bufbuild/protobuf/wkt";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { create } from "@bufbuild/protobuf";
import { KeyKind, Plan } from "@permits/proto/entitlement/v1/entitlement";
import { InspectionReportSchema } from "@permits/proto/sites/v1/sites";
import { Webhook } from "standardwebhooks";
import { checkRulesChanged } from "@permits/gateway";
import { type Received, type Receiver, startReceiver, webhookHeaders } from "@permits/sites/testing";
import { createLogger } from "@permits/runtime";
import { ManualClock, startEmbedded, type Embedded } from "./support/embedded.js";
import { AppVisitor } from "./support/app-browser.js";
import { appPageText, wordProblems } from "./support/answer-words.js";

const root = path.resolve(import.meta.dirname, "..");
const DAY = 86_400_000;
const CERTIFICATION = "I certify under penalty of law that this document and all attachments were prepared under my direction or supervision.";
let dataDir: string;
let stateDir: string;
let clock: ManualClock;
let gw: Embedded | undefined;
let key: string;
let receiver: Receiver;
/** The account's webhook endpoint's signing secret. */
let secret: string;
const site = { tx: "", wa: "" };
/** The requirement changed, read from the data so that new research does not break the test. */
let changed: { fact: string; value: number };

const start = async () => {
  gw = await startEmbedded({ STATE_DIR: stateDir, SITES_SWEEP_INTERVAL_MS: "50", WEBHOOK_ALLOW_PRIVATE: "1", WEBHOOK_POLL_MS: "50" }, { clock });
  return gw;
};
const stop = async () => {
  await gw?.close();
  gw = undefined;
};
const outbox = (type: string) => {
  const db = new DatabaseSync(path.join(stateDir, "sites.sqlite"), { readOnly: true });
  try {
    return db.prepare("select site_id, dedup_key, data_json from site_events where type = ? order by dedup_key").all(type) as { site_id: string; dedup_key: string; data_json: string }[];
  } finally {
    db.close();
  }
};
async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const found = await probe();
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}
async function visitor(): Promise<AppVisitor> {
  const v = new AppVisitor(gw!.app);
  expect((await v.signIn(key)).statusCode).toBe(303);
  await v.get("/app");
  return v;
}
/** A delivery checked by the Standard Webhooks library; its timestamp is the service's (manual) clock's, so the check runs at that time. */
function verified(r: Received): unknown {
  vi.useFakeTimers({ toFake: ["Date"], now: clock.now() });
  try {
    return new Webhook(secret).verify(r.body, webhookHeaders(r));
  } finally {
    vi.useRealTimers();
  }
}

/** The `value` field a fact states (a requirement's number). */
const statedValue = (v: Value | undefined) => (v?.kind.case === "structValue" ? v.kind.value.fields.value?.kind.value : undefined);
const who = (siteId: string) => ({ accountId: "", actor: "site-alerts test", siteId });

beforeAll(async () => {
  execFileSync("npx", ["tsc", "-b"], { cwd: root, stdio: "ignore" });
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "alerts-data-"));
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "alerts-state-"));
  fs.cpSync(path.join(root, "data"), dataDir, { recursive: true });
  fs.rmSync(path.join(dataDir, "changelog"), { recursive: true, force: true });
  const first = spawnSync(process.execPath, [path.join(root, "scripts/data-release.mjs")], { encoding: "utf8", env: { ...process.env, DATA_DIR: dataDir } });
  expect(first.status, first.stderr).toBe(0);
  process.env.DATA_DIR = dataDir;
  clock = new ManualClock(Date.UTC(2026, 10, 28, 12));
  receiver = await startReceiver();

  // The first version: two sites, each with its saved answer; the Texas one with a plan.
  await start();
  key = (await gw!.clients.entitlement.issueKey({ kind: KeyKind.LIVE, plan: Plan.PRO, label: "alerts" })).secret;
  const v = await visitor();
  await v.get("/app/settings/webhooks");
  const hook = await v.post("/app/settings/webhooks", { url: `${receiver.origin}/hook`, "event_site.rules_changed": "true", "event_inspection.overdue": "true" });
  secret = /<code>(whsec_[A-Za-z0-9+/=]+)<\/code>/.exec(hook.body)![1];
  const add = async (name: string, state: string) => {
    await v.get("/app/sites/new");
    const res = await v.post("/app/sites", { name, state, activity: "construction", acres: "5", address: `${name} road`, operator_name: "Acme Earthworks", startDate: "2026-11-01", endDate: "2027-03-31" });
    expect(res.statusCode, res.body).toBe(303);
    return (res.headers.location as string).split("/").pop()!;
  };
  site.tx = await add("Texas yard", "TX");
  site.wa = await add("Everett lots", "WA");
  await v.get(`/app/sites/${site.tx}`);
  expect((await v.post(`/app/sites/${site.tx}/plans`, {})).statusCode).toBe(303);
  const txAnswer = JSON.parse(Buffer.from((await gw!.clients.sites.getDetermination({ ...who(site.tx), accountId: await accountOf(site.tx) })).determination!.answerJson).toString());
  await stop();

  // The second version: one numeric requirement the Texas answer lists changes by 7.
  const file = path.join(dataDir, "stormwater/jurisdictions.json");
  const data = JSON.parse(fs.readFileSync(file, "utf8"));
  const permit = data.jurisdictions.find((j: { code: string }) => j.code === "TX").statePermits.find((p: { id: string }) => p.id === txAnswer.permit.id);
  const cited = new Set(txAnswer.requirements.map((r: { id: string }) => r.id));
  const q = permit.requirements.find((r: { id: string; value?: unknown }) => cited.has(r.id) && typeof r.value === "number");
  changed = { fact: `jurisdictions/TX/statePermits/${permit.id}/requirements/${q.id}/citation`, value: q.value };
  q.value += 7;
  fs.writeFileSync(file, JSON.stringify(data, null, 2));
}, 240_000);

/** The account a site belongs to, from the sites database (the test signs in by key, not by account id). */
async function accountOf(siteId: string): Promise<string> {
  const db = new DatabaseSync(path.join(stateDir, "sites.sqlite"), { readOnly: true });
  try {
    return (db.prepare("select account_id from sites where id = ?").get(siteId) as { account_id: string }).account_id;
  } finally {
    db.close();
  }
}

afterAll(async () => {
  await stop();
  await receiver?.close();
  delete process.env.DATA_DIR;
  for (const d of [dataDir, stateDir]) if (d) fs.rmSync(d, { recursive: true, force: true });
});

describe("a new dataset version changing a requirement one site cites", () => {
  it("marks that site when the gateway starts listening, with one site.rules_changed row; not the other site", async () => {
    await start();
    await gw!.app.listen({ host: "127.0.0.1", port: 0 });
    const txWho = { ...who(site.tx), accountId: await accountOf(site.tx) };
    const mark = await until("the Texas site's mark", async () => (await gw!.clients.sites.listRulesChanges(txWho)).rulesChanges[0]);
    const current = (await gw!.app.inject({ method: "GET", url: "/api/v1/coverage" })).json().data.stormwater.datasetVersion;
    expect(mark.datasetVersion).toBe(current);
    expect(mark.changes.map((c) => [c.fact, statedValue(c.before?.value), statedValue(c.after?.value)])).toEqual([[changed.fact, changed.value, changed.value + 7]]);
    expect((await gw!.clients.sites.listRulesChanges({ ...who(site.wa), accountId: await accountOf(site.wa) })).rulesChanges).toEqual([]);

    const rows = outbox("site.rules_changed");
    expect(rows.map((r) => [r.site_id, r.dedup_key])).toEqual([[site.tx, `site.rules_changed:${site.tx}:${current}`]]);
    expect(JSON.parse(rows[0].data_json)).toMatchObject({ site: { id: site.tx, name: "Texas yard" }, previousVersion: mark.previousVersion, datasetVersion: current, changes: [{ fact: changed.fact }] });
    const delivered = await until("the webhook delivery", async () => receiver.received.find((r) => r.body.includes('"site.rules_changed"')));
    expect(verified(delivered)).toMatchObject({
      type: "site.rules_changed",
      data: { site: { id: site.tx, name: "Texas yard" }, datasetVersion: current, changes: [{ fact: changed.fact, change: "changed", before: { value: { value: changed.value } }, after: { value: { value: changed.value + 7 } } }] },
    });

    const v = await visitor();
    const page = (await v.get(`/app/sites/${site.tx}`)).body;
    expect(page).toContain("The rules for this site changed on 2026-11-28.");
    expect(page).toContain(`These plan versions are out of date since dataset ${current}`);
    expect(page).toContain("Regenerate the plan with the current rules");
    expect((await v.get(`/app/sites/${site.wa}`)).body).not.toContain("The rules for this site changed");
    const dashboard = (await v.get("/app")).body;
    expect(dashboard).toContain("Needs your attention");
    expect(dashboard).toMatch(/Texas yard<\/a>: The rules for this site changed on 2026-11-28: one thing its plan relies on\. Review the changes and regenerate the plan\./);
    expect(dashboard).not.toMatch(/Everett lots<\/a>: The rules/);
    expect([page, dashboard].flatMap((body) => wordProblems(appPageText(body)))).toEqual([]);
  }, 120_000);

  it("a restart marks nothing twice, and regenerating the plan clears the mark", async () => {
    await stop();
    await start();
    await gw!.app.listen({ host: "127.0.0.1", port: 0 });
    expect((await checkRulesChanged({ clients: gw!.clients, logger: createLogger("test", { level: "silent" }) })).marked).toBe(0);
    expect(outbox("site.rules_changed")).toHaveLength(1);
    expect(receiver.received.filter((r) => r.body.includes('"site.rules_changed"'))).toHaveLength(1);

    const v = await visitor();
    await v.get(`/app/sites/${site.tx}`);
    clock.advance(60_000); // "latest" is by the time saved: the new answer is saved a minute on
    expect((await v.post(`/app/sites/${site.tx}/plans`, {})).statusCode).toBe(303);
    const txWho = { ...who(site.tx), accountId: await accountOf(site.tx) };
    expect((await gw!.clients.sites.listRulesChanges(txWho)).rulesChanges).toEqual([]);
    const page = (await v.get(`/app/sites/${site.tx}`)).body;
    expect(page).not.toContain("out of date since dataset");
    expect(page).toContain("Version 2, made 2026-11-28");
    // The new version was made from the site's answer worked out again against the data loaded now.
    const current = (await gw!.app.inject({ method: "GET", url: "/api/v1/coverage" })).json().data.stormwater.datasetVersion;
    const [{ plans }, { determination }] = await Promise.all([gw!.clients.sites.listPlanVersions(txWho), gw!.clients.sites.getDetermination(txWho)]);
    expect([plans.at(-1)!.determinationId, determination!.datasetVersion, plans.at(-1)!.note]).toEqual([determination!.id, current, `Generated from the answer of dataset ${current}`]);
    expect((await checkRulesChanged({ clients: gw!.clients, logger: createLogger("test", { level: "silent" }) })).marked).toBe(0);
  }, 120_000);
});

describe("the deadline sweep, by a manual clock", () => {
  it("records one inspection.overdue event once the inspection is overdue, not one per sweep", async () => {
    // A Washington site started yesterday and inspected today: its permit's 7-day routine is not due yet.
    const v = await visitor();
    await v.get("/app/sites/new");
    const res = await v.post("/app/sites", { name: "Lynnwood pad", state: "WA", activity: "construction", acres: "2", address: "Lynnwood", operator_name: "Acme Earthworks", startDate: "2026-11-27", endDate: "2027-03-31" });
    const id = (res.headers.location as string).split("/").pop()!;
    const w = { ...who(id), accountId: await accountOf(id) };
    const report = create(InspectionReportSchema, { inspectedOn: "2026-11-28", stormTriggered: false, inspector: { name: "Sam Ito", role: "inspector" }, phase: "grading", weather: "clear", summary: "All controls in place." });
    const draft = (await gw!.clients.sites.createInspectionDraft({ ...w, report })).inspection!;
    await gw!.clients.sites.signInspection({ ...w, inspectionId: draft.id, signedBy: "Sam Ito", certification: CERTIFICATION });
    await new Promise((r) => setTimeout(r, 300)); // several sweeps: nothing is overdue yet
    const ofSite = () => outbox("inspection.overdue").filter((r) => r.site_id === id);
    expect(ofSite()).toEqual([]);

    clock.advance(8 * DAY); // 2026-12-06: the routine inspection due 2026-12-05 is overdue
    const rows = await until("the overdue event", async () => (ofSite().length ? ofSite() : undefined));
    await new Promise((r) => setTimeout(r, 500)); // about ten more sweeps
    expect(ofSite().map((r) => r.dedup_key)).toEqual([`inspection.overdue:${id}:routine:2026-12-05`]);
    expect(JSON.parse(rows[0].data_json)).toMatchObject({ site: { id, name: "Lynnwood pad" }, what: "routine", due: "2026-12-05" });
    const sent = await until("the overdue delivery", async () => receiver.received.find((r) => r.body.includes(`"id":"${id}"`)));
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.received.filter((r) => r.body.includes(`"id":"${id}"`))).toHaveLength(1);
    expect(verified(sent)).toMatchObject({ type: "inspection.overdue", data: { site: { id }, due: "2026-12-05" } });
  }, 60_000);

  it("warns of the federal permit expiring before a Massachusetts site ends: on the dashboard, the site's page and once in the outbox", async () => {
    const v = await visitor();
    await v.get("/app/sites/new");
    const res = await v.post("/app/sites", { name: "Lowell mill", state: "MA", activity: "construction", acres: "3", address: "12 Mill Road, Lowell", operator_name: "Acme Earthworks", startDate: "2026-11-01", endDate: "2027-06-30" });
    const id = (res.headers.location as string).split("/").pop()!;
    const { determination } = await gw!.clients.sites.getDetermination({ ...who(id), accountId: await accountOf(id) });
    const permit = JSON.parse(Buffer.from(determination!.answerJson).toString()).permit;
    expect([permit.id, permit.expiryDate]).toEqual(["cgp-2022", "2027-02-16"]);
    const words = "Its permit, EPA 2022 Construction General Permit (CGP), expires on 2027-02-16, before the site&#39;s end date (2027-06-30). Find out from the permitting agency how coverage continues, and update the plan.";
    expect((await v.get("/app")).body).toContain(`Lowell mill</a>: ${words}`);
    expect((await v.get(`/app/sites/${id}`)).body).toContain(words);
    const rows = await until("the permit warning", async () => {
      const found = outbox("site.permit_expiring").filter((r) => r.site_id === id);
      return found.length ? found : undefined;
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(outbox("site.permit_expiring").filter((r) => r.site_id === id).map((r) => r.dedup_key)).toEqual([`site.permit_expiring:${id}:cgp-2022:2027-02-16`]);
    expect(JSON.parse(rows[0].data_json)).toMatchObject({ permit: { id: "cgp-2022", expiresOn: "2027-02-16", verified: true }, beforeSiteEnds: true, siteEndsOn: "2027-06-30", expired: false });
  }, 60_000);
});
