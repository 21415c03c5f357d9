// npm run bench:focus: one route of `npm run bench`, in the chosen deployments, at saturation and
// at 200 req/s offered; for A/B measurements of one change in minutes, not the whole suite.
//   BENCH_ROUTE     the route (default "POST /api/v1/determine/batch": 100 NWP determinations,
//                   ~400 KB of public JSON per answer)
//   BENCH_ONLY      embedded,distributed (default both)
//   BENCH_DURATION_S seconds per measured run (default 6)
//   BENCH_NODE_ARGS  node flags added after each start script's own (the last of a V8 flag wins),
//                    e.g. "--max-semi-space-size=32", to measure a flag against the shipped one
// Each run prints CPU per answered request and peak RSS per process, the figures that compare
// between runs on a shared VM (requests per second moves with the VM's phase).
import { fmt, load, log, measuredRun, routes, settle, startDistributed, startEmbedded, stateDirWithProKey, stopProcess } from "./lib.mjs";

const seconds = Number(process.env.BENCH_DURATION_S ?? 6);
const { stateDir, key, liveKey } = stateDirWithProKey();
const nodeArgs = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);
const only = new Set((process.env.BENCH_ONLY || "embedded,distributed").split(","));
for (const [name, start] of [["embedded", startEmbedded], ["distributed", startDistributed]].filter(([n]) => only.has(n))) {
  const dep = await start(stateDir, nodeArgs);
  const route = routes(key, liveKey).find((r) => r.route === (process.env.BENCH_ROUTE || "POST /api/v1/determine/batch"));
  if (!route) throw new Error(`no route ${process.env.BENCH_ROUTE} in bench/lib.mjs routes()`);
  await load({ url: dep.baseUrl, requests: route.requests, load: "saturation", seconds: 1.5 });
  for (const l of ["saturation", "rate-200"]) {
    await settle(dep.procs);
    const { m, processes } = await measuredRun(dep.procs, { url: dep.baseUrl, requests: route.requests, load: l, seconds });
    const perProcess = Object.entries(processes).map(([role, f]) => `${role} ${fmt(f.cpu_ms_per_req, 3)} ms CPU/req, ${fmt(f.rss_mb, 0)} MB`).join("; ");
    log(`${name} ${route.route} ${l}: ${fmt(m.rps, 0)} req/s, p50 ${fmt(m.p50_ms, 2)} ms, p99 ${fmt(m.p99_ms, 2)} ms, errors ${m.errors}; ${perProcess}`);
  }
  for (const p of dep.procs) await stopProcess(p);
}
process.exit(0);
