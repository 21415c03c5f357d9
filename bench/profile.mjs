// Where the time goes: runs one deployment under saturation with `node --cpu-prof` on every server
// process, then prints the top self-time functions (and packages) of each process, counting only
// the samples taken while the measured load ran (start-up and warm-up are left out).
//
//   node bench/profile.mjs [embedded|distributed] [route substring] [seconds]
//   e.g. node bench/profile.mjs embedded "POST /api/v1/determine" 10
// PROFILE_LOAD=rate-200 profiles the fixed 200 req/s load instead of saturation.
// Profiles are kept in a temporary folder whose path is printed (open them in Chrome DevTools).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fmt, load, log, routes, settle, startDistributed, startEmbedded, started, stateDirWithProKey, stopProcess } from "./lib.mjs";

const [deployment = "embedded", routeFilter = "POST /api/v1/determine", secondsArg = "10"] = process.argv.slice(2);
const seconds = Number(secondsArg);
const TOP = Number(process.env.PROFILE_TOP ?? 25);
const LOAD = process.env.PROFILE_LOAD || "saturation";
if (!["saturation", "rate-200"].includes(LOAD)) throw new Error(`PROFILE_LOAD must be saturation or rate-200, not ${LOAD}`);

/** Self time per function and per file/package of the samples within [fromUs, toUs] (monotonic µs). */
export function summarise(profile, fromUs = -Infinity, toUs = Infinity) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const totalByFn = new Map();
  const selfByFn = new Map();
  const selfByFile = new Map();
  let total = 0;
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    if (t < fromUs || t > toUs) continue;
    const d = profile.timeDeltas[i + 1] ?? profile.timeDeltas[i] ?? 0; // the time until the next sample
    const cf = byId.get(profile.samples[i]).callFrame;
    const url = cf.url.replace(/^file:\/\//, "").replace(process.cwd() + "/", "");
    const shortUrl = url.replace(/.*node_modules\//, "");
    const fn = `${cf.functionName || "(anonymous)"}${url ? ` ${shortUrl}:${cf.lineNumber + 1}` : ""}`;
    const file = url ? (url.includes("node_modules/") ? `pkg ${/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)[1]}` : url) : `(${cf.functionName})`;
    selfByFn.set(fn, (selfByFn.get(fn) ?? 0) + d);
    // Inclusive time of this project's own functions (each counted once per sample).
    const seen = new Set();
    for (let id = profile.samples[i]; id !== undefined; id = parent.get(id)) {
      const f = byId.get(id).callFrame;
      if (!/\/(gateway|services)\/[^/]+\/dist\/|\/(gateway)\/dist\//.test(f.url)) continue;
      const k = `${f.functionName || "(anonymous)"} ${f.url.replace(/^file:\/\//, "").replace(process.cwd() + "/", "")}:${f.lineNumber + 1}`;
      if (seen.has(k)) continue;
      seen.add(k);
      totalByFn.set(k, (totalByFn.get(k) ?? 0) + d);
    }
    selfByFile.set(file, (selfByFile.get(file) ?? 0) + d);
    total += d;
  }
  const sorted = (m) => [...m].sort((a, b) => b[1] - a[1]);
  return { totalMs: total / 1000, functions: sorted(selfByFn), files: sorted(selfByFile), inclusive: sorted(totalByFn) };
}

function print(name, s) {
  const pct = (us) => `${((100 * us) / (s.totalMs * 1000)).toFixed(1).padStart(5)}%`;
  console.log(`\n=== ${name}: ${fmt(s.totalMs, 0)} ms sampled during the load`);
  console.log("--- self time by function");
  for (const [k, us] of s.functions.slice(0, TOP)) console.log(`${pct(us)}  ${k}`);
  console.log("--- self time by file or package");
  for (const [k, us] of s.files.slice(0, 15)) console.log(`${pct(us)}  ${k}`);
  console.log("--- inclusive time of the project's own functions (gateway/, services/)");
  for (const [k, us] of s.inclusive.slice(0, TOP)) console.log(`${pct(us)}  ${k}`);
}

const profDir = fs.mkdtempSync(path.join(os.tmpdir(), "permits-profile-"));
const { stateDir, key, liveKey } = stateDirWithProKey();
const route = routes(key, liveKey).find((r) => r.route.includes(routeFilter));
if (!route) throw new Error(`no route matches "${routeFilter}"`);
const nodeArgs = ["--cpu-prof", `--cpu-prof-dir=${profDir}`];
const dep = deployment === "distributed" ? await startDistributed(stateDir, nodeArgs) : await startEmbedded(stateDir, nodeArgs);
let window;
try {
  log(`${deployment}: warming up ${route.route}`);
  await load({ url: dep.baseUrl, requests: route.requests, load: "saturation", seconds: 2 });
  await settle(dep.procs);
  const from = Number(process.hrtime.bigint() / 1000n);
  const m = await load({ url: dep.baseUrl, requests: route.requests, load: LOAD, seconds });
  window = [from, Number(process.hrtime.bigint() / 1000n)];
  log(`${deployment} ${route.route}: ${fmt(m.rps, 0)} req/s, p50 ${fmt(m.p50_ms, 2)} ms, p99 ${fmt(m.p99_ms, 2)} ms, errors ${m.errors}`);
} finally {
  await Promise.all(dep.procs.map(stopProcess));
  fs.rmSync(stateDir, { recursive: true, force: true });
}
for (const p of dep.procs) {
  const file = fs.readdirSync(profDir).find((f) => f.includes(`.${p.child.pid}.`));
  if (!file) {
    console.log(`\n=== ${p.name}: no profile written (${p.stderr().slice(-500)})`);
    continue;
  }
  print(`${p.name} (${path.join(profDir, file)})`, summarise(JSON.parse(fs.readFileSync(path.join(profDir, file), "utf8")), ...window));
}
void started;
