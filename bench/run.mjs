// npm run bench: the gateway measured against its own ceiling, in one bounded run on loopback.
//
//   1. ceiling      a bare Fastify route answering precomputed determinations (bench/ceiling.mjs)
//   2. embedded     node gateway/dist/main.js (the four services in process, direct transport)
//   3. distributed  the four services and the gateway as separate processes, HTTP/2 between them
//   4. engine       the stormwater and NWP engines alone, in one process (bench/engines.mjs)
//   5. sites        the sites service on its embedded database (SQLite), as npm run bench:sites
//                   runs it (services/sites/src/bench.ts, about a second): issue 39's figures,
//                   printed under the table and written to results.json's "sites"
//
// "saturation" is autocannon with 50 connections as fast as the server answers; "rate-200" is a
// fixed offered load of 200 req/s on a uniform open-loop schedule, sent with undici
// (bench/lib.mjs paced(): autocannon's overallRate sends each second's quota in one burst per
// connection; BENCH_RATE_TOOL=autocannon uses it anyway, for comparison).
// Before each measured run the processes are let finish what the previous run left in flight
// (bench/lib.mjs settle()), so a rate-200 run does not start behind a saturation run's backlog.
// Each run also records the CPU each server process spent per answered request (from /proc),
// by role: the figure that shows which process bounds a deployment, steadier than req/s here.
// Every request carries a key whose policy (bench/tiers.bench.json) never throttles, so auth and
// the rate-limit decision run on every request. A non-2xx answer counts as an error.
//
// Options (environment, or flags):
//   BENCH_DURATION_S  seconds per measured run (default 8; --quick sets 0.5)
//   BENCH_WARMUP_S    unmeasured warm-up per route (default 1.5; --quick sets 0)
//   BENCH_RESULTS     where to write the results (default bench/results.json)
//   BENCH_ONLY        comma-separated parts to run (ceiling,embedded,distributed,engine,sites)
//   BENCH_ROUTES      comma-separated parts of route names: only the routes naming one (e.g. "live key")
//   --quick           the tiny budget of the smoke test (and batches of 10 projects, not 100)
//   --soak            instead of the suite: embedded POST /api/v1/determine at saturation for
//                     BENCH_SOAK_S seconds (default 60), RSS sampled every second, written to
//                     BENCH_SOAK_RESULTS (default bench/soak.json)
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import os from "node:os";
import {
  fmt, load, log, RATE, RATE_CONNECTIONS, realDeterminations, ROOT, routes, SATURATION_CONNECTIONS, SERVICES, measuredRun, sampleRss,
  settle, startCeiling, startDistributed, startEmbedded, started, stateDirWithProKey, stopProcess,
} from "./lib.mjs";

const args = new Set(process.argv.slice(2));
const QUICK = args.has("--quick");
const SOAK = args.has("--soak");
const num = (v, d) => (v === undefined || v === "" ? d : Number(v));
const DURATION_S = num(process.env.BENCH_DURATION_S, QUICK ? 0.5 : 8);
const WARMUP_S = num(process.env.BENCH_WARMUP_S, QUICK ? 0 : 1.5);
const SOAK_S = num(process.env.BENCH_SOAK_S, 60);
const RESULTS = path.resolve(process.env.BENCH_RESULTS || path.join(ROOT, "bench/results.json"));
const SOAK_RESULTS = path.resolve(process.env.BENCH_SOAK_RESULTS || path.join(ROOT, "bench/soak.json"));
const ONLY = new Set((process.env.BENCH_ONLY || "ceiling,embedded,distributed,engine,sites").split(",").map((s) => s.trim()));
const ROUTES = (process.env.BENCH_ROUTES || "").split(",").map((s) => s.trim()).filter(Boolean);

for (const [k, v] of Object.entries({ BENCH_DURATION_S: DURATION_S, BENCH_WARMUP_S: WARMUP_S, BENCH_SOAK_S: SOAK_S })) {
  if (!Number.isFinite(v) || v < 0) throw new Error(`${k} must be a non-negative number of seconds`);
}

const runs = [];
const notes = [];

async function measureDeployment(deployment, baseUrl, procs, routeList) {
  for (const r of routeList) {
    if (WARMUP_S > 0) {
      const w = await load({ url: baseUrl, requests: r.requests, load: "saturation", seconds: WARMUP_S });
      if (w.errors) throw new Error(`${deployment} ${r.route}: ${w.errors} errors while warming up (${w.detail})`);
    }
    for (const l of r.loads) {
      // The warm-up's (or the last run's) backlog is not this run's: let it drain first.
      if (!(await settle(procs))) notes.push(`${deployment} ${r.route} ${l}: the processes were still busy 10 s after the previous run; measured anyway`);
      const { m, peakMb, processes } = await measuredRun(procs, { url: baseUrl, requests: r.requests, load: l, seconds: DURATION_S });
      const cpu = Object.values(processes).reduce((s, p) => s + p.cpu_ms_per_req, 0);
      const run = { name: `${deployment} ${r.route} ${l}`, deployment, route: r.route, load: l, rps: m.rps, p50_ms: m.p50_ms, p97_5_ms: m.p97_5_ms, p99_ms: m.p99_ms, errors: m.errors, rss_mb: peakMb, cpu_ms_per_req: cpu, processes, ratio_to_ceiling: 0 };
      runs.push(run);
      if (m.detail) notes.push(`${run.name}: ${m.detail}`);
      if (l === "rate-200" && m.rps < RATE * 0.9) {
        // What the offered load costs in CPU, from this run's own accounting, against the cores there are.
        const cores = (cpu * RATE) / 1000;
        const busiest = Object.entries(processes).sort((a, b) => b[1].cpu_ms_per_req - a[1].cpu_ms_per_req)[0];
        notes.push(`${run.name}: completed ${fmt(m.rps, 0)} req/s of the ${RATE} offered: the deployment cannot sustain this load (${RATE} req/s at ${fmt(cpu, 2)} ms of server CPU each needs ${fmt(cores, 2)} of the machine's ${os.availableParallelism?.() ?? os.cpus().length} cores, before the load generator's; the busiest process, ${busiest[0]}, needs ${fmt((busiest[1].cpu_ms_per_req * RATE) / 1000, 2)} of one)`);
      }
      if (m.rps === 0) notes.push(`${run.name}: no request completed within the run (latencies are 0, not measured)`);
      log(`  ${run.name}: ${fmt(run.rps, 0)} req/s, p50 ${fmt(run.p50_ms, 2)} ms, p99 ${fmt(run.p99_ms, 2)} ms, errors ${run.errors}, rss ${fmt(run.rss_mb, 0)} MB, CPU ${Object.entries(processes).map(([k, p]) => `${k} ${fmt(p.cpu_ms_per_req, 3)}`).join(" + ")} ms/req`);
    }
  }
}

/** Issue 39's targets for the sites service on the embedded database. */
const SITES_TARGETS = { signed_inspection_p50_ms: 5, list_200_sites_p50_ms: 50, rss_added_mb: 30 };

/** The sites figures, from the command (node flags and script) of package.json's bench:sites. */
function sitesFigures() {
  const script = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")).scripts["bench:sites"];
  const [node, ...words] = script.split("&&").at(-1).trim().split(/\s+/);
  if (node !== "node") throw new Error(`bench:sites does not end in a node command: ${script}`);
  const args = words.map((w, i) => (i === words.length - 1 ? path.join(ROOT, w) : w));
  const out = JSON.parse(execFileSync(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] }).toString());
  const sites = { signed_inspection_p50_ms: out.signedInspectionP50Ms, list_200_sites_p50_ms: out.list200SitesP50Ms, rss_added_mb: out.rssAddedMb, targets: SITES_TARGETS };
  for (const [k, target] of Object.entries(SITES_TARGETS)) {
    if (!Number.isFinite(sites[k])) throw new Error(`bench:sites gave no ${k}: ${JSON.stringify(out)}`);
    if (sites[k] > target) notes.push(`sites: ${k} ${sites[k]} is over its target of ${target}`);
  }
  return sites;
}

function sitesLines(s) {
  return [
    "sites service, embedded (SQLite in a temp STATE_DIR, in process):",
    `  creating a signed inspection (draft, then sign), p50: ${fmt(s.signed_inspection_p50_ms, 2)} ms (target < ${s.targets.signed_inspection_p50_ms} ms)`,
    `  listing 200 sites with their last signed inspection, p50: ${fmt(s.list_200_sites_p50_ms, 2)} ms (target < ${s.targets.list_200_sites_p50_ms} ms)`,
    `  RSS the sites service adds in use (200 sites, before its first call to after): ${fmt(s.rss_added_mb, 1)} MB (target at most ${s.targets.rss_added_mb} MB)`,
  ].join("\n");
}

// ---------------------------------------------------------------------------------------------
// Output

function machine() {
  const cpuinfo = fs.existsSync("/proc/cpuinfo") ? fs.readFileSync("/proc/cpuinfo", "utf8") : "";
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? os.cpus()[0]?.model ?? "unknown";
  return {
    cpus: os.availableParallelism?.() ?? os.cpus().length,
    cpu_model: model,
    memory_gb: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    date: new Date().toISOString(),
    duration_s: DURATION_S,
    connections: SATURATION_CONNECTIONS,
    rate_tool: process.env.BENCH_RATE_TOOL === "autocannon" ? `autocannon overallRate over ${RATE_CONNECTIONS} connections` : "paced open loop (uniform schedule, undici client)",
  };
}

function table(rows) {
  const head = ["deployment", "route", "load", "req/s", "p50 ms", "p97.5 ms", "p99 ms", "errors", "RSS MB", "CPU ms/req", "x ceiling"];
  const body = rows.map((r) => [r.deployment, r.route, r.load, fmt(r.rps, 0), fmt(r.p50_ms, r.deployment === "engine" ? 4 : 2), fmt(r.p97_5_ms, r.deployment === "engine" ? 4 : 2), fmt(r.p99_ms, r.deployment === "engine" ? 4 : 2), String(r.errors), fmt(r.rss_mb, 0), fmt(r.cpu_ms_per_req, r.deployment === "engine" ? 4 : 3), fmt(r.ratio_to_ceiling, 3)]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells) => "| " + cells.map((c, i) => (i >= 3 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(" | ") + " |";
  return [line(head), "|" + widths.map((w, i) => (i >= 3 ? "-".repeat(w + 1) + ":" : "-".repeat(w + 2))).join("|") + "|", ...body.map(line)].join("\n");
}

// ---------------------------------------------------------------------------------------------
// Main

async function soak() {
  const { stateDir } = stateDirWithProKey();
  const emb = await startEmbedded(stateDir);
  try {
    const [r] = routes("unused");
    log(`soak: embedded ${r.route} at saturation for ${SOAK_S} s`);
    const mem = sampleRss([emb.procs[0].child.pid], 1000);
    const m = await load({ url: emb.baseUrl, requests: r.requests, load: "saturation", seconds: SOAK_S });
    const { peakMb, samples } = mem.stop();
    const after = (s) => samples.filter((x) => x.t_s >= s);
    const early = after(Math.min(10, SOAK_S / 4))[0]?.rss_mb ?? samples[0].rss_mb;
    const late = samples.at(-1).rss_mb;
    const out = {
      machine: machine(), route: r.route, seconds: SOAK_S, rps: m.rps, p50_ms: m.p50_ms, p99_ms: m.p99_ms, errors: m.errors,
      peak_rss_mb: peakMb, rss_after_warmup_mb: early, rss_end_mb: late, growth_mb: late - early, samples,
    };
    fs.writeFileSync(SOAK_RESULTS, JSON.stringify(out, null, 2) + "\n");
    log(`soak: ${fmt(m.rps, 0)} req/s, errors ${m.errors}, RSS ${fmt(early, 1)} MB after warm-up -> ${fmt(late, 1)} MB at the end (peak ${fmt(peakMb, 1)} MB); wrote ${SOAK_RESULTS}`);
    if (m.errors) process.exitCode = 1;
  } finally {
    await Promise.all(emb.procs.map(stopProcess));
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
}

async function suite() {
  for (const f of ["gateway/dist/main.js", ...SERVICES.map((s) => `services/${s}/dist/main.js`)]) {
    if (!fs.existsSync(path.join(ROOT, f))) throw new Error(`${f} is missing: run npm run build first`);
  }
  const t0 = Date.now();
  let sites;
  const { stateDir, key, liveKey } = stateDirWithProKey();
  // --quick checks that everything answers, not how fast: batches of 10, whose backlog at 200
  // requests/s does not hold the smoke test for seconds as batches of 100 do (7.5 s embedded).
  const routeList = routes(key, liveKey, QUICK ? 10 : 100).filter((r) => ROUTES.length === 0 || ROUTES.some((x) => r.route.includes(x)));
  const bodiesFile = path.join(stateDir, "ceiling-bodies.json");
  try {
    // Embedded first: its answers to the determine mix are the ceiling's precomputed bodies.
    {
      const emb = await startEmbedded(stateDir);
      try {
        fs.writeFileSync(bodiesFile, JSON.stringify(await realDeterminations(emb.baseUrl)));
        if (ONLY.has("embedded")) {
          log(`embedded (pid ${emb.procs[0].child.pid})`);
          await measureDeployment("embedded", emb.baseUrl, emb.procs, routeList);
        }
      } finally {
        await Promise.all(emb.procs.map(stopProcess));
      }
    }
    // The ceiling answers the sandbox determine mix only.
    const ceilingRoutes = routeList.filter((r) => r.route === "POST /api/v1/determine");
    if (ONLY.has("ceiling") && ceilingRoutes.length > 0) {
      const c = await startCeiling(bodiesFile);
      try {
        log("ceiling (bare Fastify, precomputed answers)");
        await measureDeployment("ceiling", c.baseUrl, c.procs, ceilingRoutes);
      } finally {
        await Promise.all(c.procs.map(stopProcess));
      }
    }
    if (ONLY.has("distributed")) {
      const d = await startDistributed(stateDir);
      try {
        log(`distributed (pids ${d.procs.map((p) => `${p.name} ${p.child.pid}`).join(", ")})`);
        await measureDeployment("distributed", d.baseUrl, d.procs, routeList);
      } finally {
        await Promise.all(d.procs.map(stopProcess));
      }
    }
    if (ONLY.has("engine")) {
      log("engines alone (one process, one JS thread)");
      const seconds = Math.max(0.2, Math.min(DURATION_S, 3));
      const out = execFileSync(process.execPath, [path.join(ROOT, "bench/engines.mjs"), String(seconds)], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] }).toString();
      for (const line of out.split("\n").filter(Boolean)) {
        const e = JSON.parse(line);
        // One thread deciding flat out: the CPU of a determination is the time between two.
        const cpu = e.rps > 0 ? 1000 / e.rps : 0;
        const run = { ...e, cpu_ms_per_req: cpu, processes: { engine: { cpu_ms_per_req: cpu, rss_mb: e.rss_mb } }, ratio_to_ceiling: 0 };
        runs.push(run);
        log(`  ${run.name}: ${fmt(run.rps, 0)} determinations/s, p50 ${fmt(run.p50_ms * 1000, 1)} us, p99 ${fmt(run.p99_ms * 1000, 1)} us`);
      }
    }
    if (ONLY.has("sites")) {
      log("sites service (embedded database)");
      sites = sitesFigures();
      log(sitesLines(sites));
    }
  } finally {
    fs.rmSync(stateDir, { recursive: true, force: true });
  }

  // Each run against the ceiling at the same load (saturation runs against ceiling saturation).
  const order = ["ceiling", "embedded", "distributed", "engine"];
  runs.sort((a, b) => order.indexOf(a.deployment) - order.indexOf(b.deployment));
  const round = (x) => Math.round(x * 1e4) / 1e4;
  for (const r of runs) {
    const ceiling = runs.find((c) => c.deployment === "ceiling" && c.load === r.load) ?? runs.find((c) => c.deployment === "ceiling" && c.load === "saturation");
    r.ratio_to_ceiling = ceiling && ceiling.rps > 0 ? r.rps / ceiling.rps : 0;
    for (const k of ["rps", "p50_ms", "p97_5_ms", "p99_ms", "rss_mb", "cpu_ms_per_req", "ratio_to_ceiling"]) r[k] = round(r[k]);
    for (const p of Object.values(r.processes)) for (const k of Object.keys(p)) p[k] = round(p[k]);
  }
  const results = { machine: { ...machine(), wall_s: Math.round((Date.now() - t0) / 100) / 10 }, runs, ...(sites && { sites }) };
  fs.mkdirSync(path.dirname(RESULTS), { recursive: true });
  fs.writeFileSync(RESULTS, JSON.stringify(results, null, 2) + "\n");
  const m = results.machine;
  console.log(`\n${m.cpus} x ${m.cpu_model}, ${m.memory_gb} GB, Node ${m.node}, ${m.os}; ${DURATION_S} s per run, ${SATURATION_CONNECTIONS} connections at saturation, ${RATE} req/s ${m.rate_tool} at rate-200\n`);
  console.log(table(runs));
  if (sites) console.log(`\n${sitesLines(sites)}`);
  for (const n of notes) console.log(`note: ${n}`);
  console.log(`\nwrote ${path.relative(process.cwd(), RESULTS) || RESULTS} in ${m.wall_s} s`);
  if (runs.some((r) => r.errors > 0)) {
    console.error("some runs had errors (non-2xx, socket errors or timeouts): the numbers of those runs are not valid");
    process.exitCode = 1;
  }
}

try {
  await (SOAK ? soak() : suite());
} catch (e) {
  console.error(e instanceof Error ? e.stack ?? e.message : e);
  process.exitCode = 1;
} finally {
  await Promise.all([...started].map(stopProcess));
}
