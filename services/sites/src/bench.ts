// npm run bench:sites: the sites service on its embedded database (SQLite in a temp STATE_DIR), in
// this process, built through its manifest: RSS before its first call and after 200 sites, the p50 of
// creating a signed inspection (draft, then sign), and listing 200 sites with their last signed
// inspection. Issue 39's targets: p50 < 5 ms, list < 50 ms, at most 30 MB RSS added.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { getHeapSpaceStatistics } from "node:v8";
import { create } from "@bufbuild/protobuf";
import { CreateInspectionDraftRequestSchema, CreateSiteRequestSchema, ListSitesRequestSchema, SignInspectionRequestSchema } from "@permits/proto/sites/v1/sites";
import { createLogger, systemClock } from "@permits/runtime";
import { manifest } from "./manifest.js";

const SITES = 200;
const stateDir = mkdtempSync(path.join(tmpdir(), "bench-sites-"));
const mb = () => process.memoryUsage().rss / 2 ** 20;
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const gc = (globalThis as { gc?: () => void }).gc;
const caller = { accountId: "acct_bench", actor: "bench" };

// A gateway has grown V8's young generation already, to the start scripts' --max-semi-space-size
// (32 MB of new space right after `npm start`, before any request); grow this process's alike
// first, so the figure below is what the sites service adds (its code, its database, its data), not
// the young generation any process grows. Objects that all die at once grow it to 16 MB only: some
// must survive a collection, as a server's requests in flight do. A gateway has Connect loaded too.
await import("@connectrpc/connect");
const inFlight: unknown[] = new Array(10_000);
for (let n = 0; n < 1_000_000; n++) inFlight[n % inFlight.length] = { n, text: `request ${n}`, list: [n, n + 1] };
inFlight.length = 0;
const newSpaceMb = () => getHeapSpaceStatistics().find((s) => s.space_name === "new_space")!.space_size / 2 ** 20;
gc?.();
const youngBefore = newSpaceMb();
const before = mb();
const build = await manifest.load();
const built = await build({ env: { STATE_DIR: stateDir }, logger: createLogger("bench", { level: "silent" }), clock: systemClock });
const s = built.impl;
/** The handlers read no call context. */
const call = undefined as never;
const details = (n: number) => ({
  name: `Site ${n}`,
  input: { state: "WA", activity: "construction", disturbedAcres: 4.5 },
  location: { address: `${n} Maple St, Everett, WA` },
  operator: { name: "Dana Reyes" },
  contacts: [],
});
const report = { inspectedOn: "2026-11-20", inspector: { name: "Sam Ito" }, phase: "grading", weather: "clear", findings: [{ id: "f1", location: "north fence", description: "sediment at half height", needsCorrectiveAction: true }], summary: "one control needs maintenance" };

const signedMs = [];
for (let n = 0; n < SITES; n++) {
  const { site } = await s.createSite(create(CreateSiteRequestSchema, { ...caller, details: details(n) }), call);
  const t = performance.now();
  const { inspection } = await s.createInspectionDraft(create(CreateInspectionDraftRequestSchema, { ...caller, siteId: site!.id, report }), call);
  await s.signInspection(create(SignInspectionRequestSchema, { ...caller, siteId: site!.id, inspectionId: inspection!.id, signedBy: "Sam Ito", certification: "I certify under penalty of law." }), call);
  signedMs.push(performance.now() - t);
}
const listMs = [];
for (let n = 0; n < 20; n++) {
  const t = performance.now();
  const sites = (await s.listSites(create(ListSitesRequestSchema, caller), call)).sites ?? [];
  listMs.push(performance.now() - t);
  if (sites.length !== SITES || !sites.every((x) => x.lastInspectedOn === "2026-11-20")) throw new Error("the list is not the 200 sites with their inspection");
}
gc?.();
const after = mb();
if (newSpaceMb() > youngBefore) throw new Error(`the young generation grew from ${youngBefore} to ${newSpaceMb()} MB during the measurement: grow it fully first`);
await built.close();
rmSync(stateDir, { recursive: true, force: true });
console.log(JSON.stringify({ signedInspectionP50Ms: +p50(signedMs).toFixed(2), list200SitesP50Ms: +p50(listMs).toFixed(2), rssAddedMb: +(after - before).toFixed(1) }));
