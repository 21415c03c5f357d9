// npm run bench:app: the app (issue 40) on an embedded gateway in this process with a temp
// STATE_DIR (SQLite): the p50 of the dashboard (GET /app, signed in) over 200 sites, half of them
// with a signed inspection, rain and an overdue corrective action, and the p50 of generating a plan
// version (POST /app/sites/{id}/plans: both files, stored). Issue 40's targets: dashboard < 50 ms,
// plan < 500 ms. It reports; it asserts nothing but that every request answered as the app does.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { KeyKind, Plan } from "@permits/proto/entitlement/v1/entitlement";
import { buildApp, readGatewayConfig, SERVICES, urlVariable, wireServices } from "@permits/gateway";
import { createLogger, systemClock } from "@permits/runtime";

const SITES = 200;
const DASHBOARD_RUNS = 30;
/** The first plan loads the PDF library and its fonts (some 2 s); it is timed too, as a user meets it. */
const PLAN_RUNS = 11;
const p50 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => `${x.toFixed(1)} ms`;
/** Wall time and this process's CPU time of one request: on a shared machine the two differ. */
async function timed(wall, cpu, call) {
  const c = process.cpuUsage();
  const t = performance.now();
  const out = await call();
  wall.push(performance.now() - t);
  const used = process.cpuUsage(c);
  cpu.push((used.user + used.system) / 1000);
  return out;
}

const stateDir = mkdtempSync(path.join(os.tmpdir(), "bench-app-"));
const env = { ...process.env, LOG_LEVEL: "silent", REDIS_URL: "", STATE_DIR: stateDir };
for (const s of SERVICES) delete env[urlVariable(s.name)];
const config = readGatewayConfig(env);
const logger = createLogger("gateway", { level: "silent" });
const wiring = await wireServices(config, { env, logger, clock: systemClock });
const app = await buildApp({ clients: wiring.clients, config, logger, clock: systemClock, ready: wiring.ready, engines: wiring.engines, tracing: false });
await app.ready();

/** A signed-in browser: its cookies and the last page's form token. */
const cookies = new Map();
let token = "";
async function send(method, url, fields) {
  const headers = { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join("; ") };
  const payload = fields && new URLSearchParams({ _csrf: token, ...fields }).toString();
  if (payload) headers["content-type"] = "application/x-www-form-urlencoded";
  const res = await app.inject({ method, url, headers, payload });
  for (const c of res.cookies) cookies.set(c.name, c.value);
  const m = /name="_csrf" value="([^"]+)"/.exec(res.body);
  if (m) token = m[1];
  return res;
}
function expectStatus(res, status, what) {
  if (res.statusCode !== status) throw new Error(`${what}: ${res.statusCode} ${res.body.slice(0, 300)}`);
  return res;
}

const { secret } = await wiring.clients.entitlement.issueKey({ kind: KeyKind.LIVE, plan: Plan.PRO, label: "bench" });
await send("GET", "/app");
expectStatus(await send("POST", "/app/session", { api_key: secret }), 303, "sign-in");
const { accountId } = await wiring.clients.entitlement.resolveAccount({ apiKey: secret });
const sites = wiring.clients.sites;

const today = new Date().toISOString().slice(0, 10);
const daysAgo = (n) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
const t0 = performance.now();
const ids = [];
for (let n = 0; n < SITES; n++) {
  await send("GET", "/app/sites/new");
  const res = expectStatus(await send("POST", "/app/sites", { name: `Site ${n}`, address: `${n} Maple St, Everett`, operator_name: "Dana Reyes", state: "MA", activity: "construction", acres: String(1 + (n % 20)), startDate: daysAgo(60) }), 303, "new site");
  const siteId = res.headers.location.split("/").pop();
  ids.push(siteId);
  if (n % 2 === 0) {
    const w = { accountId, actor: "bench", siteId };
    const report = { inspectedOn: daysAgo(10), inspector: { name: "Sam Ito" }, stormTriggered: false, phase: "grading", weather: "clear", findings: [{ id: "f1", location: "north fence", description: "sediment at half height", needsCorrectiveAction: true }], summary: "one control needs maintenance" };
    const { inspection } = await sites.createInspectionDraft({ ...w, report });
    await sites.signInspection({ ...w, inspectionId: inspection.id, signedBy: "Sam Ito", certification: "I certify under penalty of law." });
    await sites.openCorrectiveAction({ ...w, inspectionId: inspection.id, findingId: "f1", description: "clean the silt fence", foundOn: daysAgo(10), dueOn: daysAgo(3) });
    await sites.addRainEvent({ ...w, occurredOn: daysAgo(5), inches: 0.6, measuredBy: "site gauge" });
  }
}
const setupMs = performance.now() - t0;

const dashboardMs = [];
const dashboardCpu = [];
for (let n = 0; n < DASHBOARD_RUNS; n++) {
  const res = expectStatus(await timed(dashboardMs, dashboardCpu, () => send("GET", "/app")), 200, "dashboard");
  const rows = res.body.match(/<tr><td data-label="Site">/g) ?? [];
  if (rows.length !== SITES) throw new Error(`the dashboard shows ${rows.length} sites, not ${SITES}`);
}

const planMs = [];
const planCpu = [];
for (let n = 0; n < PLAN_RUNS; n++) {
  const siteId = ids[n];
  await send("GET", `/app/sites/${siteId}`);
  expectStatus(await timed(planMs, planCpu, () => send("POST", `/app/sites/${siteId}/plans`, {})), 303, "new plan version");
}

console.log(`app bench (embedded gateway, SQLite in a temp STATE_DIR, ${today})`);
console.log(`  setup: ${SITES} sites in ${ms(setupMs)}`);
console.log(`  dashboard of ${SITES} sites, p50 of ${DASHBOARD_RUNS}: ${ms(p50(dashboardMs))} (fastest ${ms(Math.min(...dashboardMs))}, CPU p50 ${ms(p50(dashboardCpu))}; target < 50 ms)`);
console.log(`  generating a plan version, p50 of ${PLAN_RUNS}: ${ms(p50(planMs))} (fastest ${ms(Math.min(...planMs))}, CPU p50 ${ms(p50(planCpu))}; target < 500 ms)`);
await app.close();
await wiring.close();
rmSync(stateDir, { recursive: true, force: true });
