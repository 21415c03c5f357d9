// Shared pieces of the benchmark (bench/run.mjs) and the profiler (bench/profile.mjs): the
// server processes of each deployment, RSS sampling and the autocannon runs.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import autocannon from "autocannon";
import { Pool } from "undici";
import { SERVICES as MANIFESTS, urlVariable } from "@permits/gateway/services";
import { batchOf100, PROJECTS, REQUIREMENT_QUERIES, SITES } from "./requests.mjs";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const SATURATION_CONNECTIONS = 50;
export const RATE = 200;
export const RATE_CONNECTIONS = 10;
export const TIERS_FILE = path.join(ROOT, "bench/tiers.bench.json");
const LEGACY_KEY_SECRET = "benchmark-legacy-key-secret-not-for-production";
export const SANDBOX_KEY = "svc_sandbox_public";
/** The services' names, from the gateway's list (gateway/src/services.ts, built). */
export const SERVICES = MANIFESTS.map((s) => s.name);

// ---------------------------------------------------------------------------------------------
// Processes

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** process.env with `env` over it; an undefined value removes the variable. */
function childEnv(env) {
  const out = { ...process.env };
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete out[k];
    else out[k] = v;
  }
  return out;
}

const devNull = fs.openSync("/dev/null", "w");
export const started = new Set();

const START_SCRIPTS = Object.values(JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")).scripts);

/**
 * The node flags the root package.json's start scripts give `script` (`node <flags> <script>`),
 * so each role is measured as `npm run start:<role>` runs it. The ceiling, which has no script,
 * runs with the gateway's.
 */
export function startFlags(script) {
  const own = script === "bench/ceiling.mjs" ? "gateway/dist/main.js" : script;
  const words = START_SCRIPTS.map((s) => s.split(" ")).find((w) => w[0] === "node" && w.at(-1) === own);
  if (!words) throw new Error(`no start script of package.json runs node ${own}`);
  return words.slice(1, -1);
}

/**
 * A server process, started with its start script's node flags: stdout (the JSON request log at
 * the default level) goes to /dev/null, stderr is kept for diagnostics.
 */
export function startProcess(name, script, env, nodeArgs = []) {
  const child = spawn(process.execPath, [...startFlags(script), ...nodeArgs, path.join(ROOT, script)], {
    cwd: ROOT,
    env: childEnv(env),
    stdio: ["ignore", devNull, "pipe"],
  });
  let err = "";
  child.stderr.on("data", (d) => (err = (err + d).slice(-20_000)));
  const proc = { name, child, stderr: () => err };
  started.add(proc);
  child.once("exit", () => started.delete(proc));
  return proc;
}

export function stopProcess(p) {
  return new Promise((resolve) => {
    if (p.child.exitCode !== null || p.child.signalCode !== null) return resolve();
    p.child.once("exit", () => resolve());
    p.child.kill("SIGTERM");
    setTimeout(() => p.child.kill("SIGKILL"), 5000).unref();
  });
}

export async function waitReady(url, procs, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const dead = procs.find((p) => p.child.exitCode !== null);
    if (dead) throw new Error(`${dead.name} exited with ${dead.child.exitCode} before it was ready:\n${dead.stderr()}`);
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {}
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${url}:\n${procs.map((p) => `--- ${p.name}\n${p.stderr()}`).join("\n")}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

process.on("exit", () => {
  for (const p of started) p.child.kill("SIGKILL");
});
for (const sig of ["SIGINT", "SIGTERM"]) process.once(sig, () => process.exit(130));

// ---------------------------------------------------------------------------------------------
// Memory: resident set of the server processes, sampled from /proc while a run lasts.

export function rssBytes(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc (clock ticks of 10 ms). */
export function cpuSeconds(pid) {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime (fields 14 and 15)
  } catch {
    return 0;
  }
}

/**
 * Waits until a deployment has done the work already sent to it. A saturation run ends with up to
 * SATURATION_CONNECTIONS requests still being answered (for the batch route, a few hundred ms of
 * work), which the next run would meet as queueing and be charged for in CPU. Settled: a 200 ms
 * window in which the processes together used at most 20 ms of CPU (two clock ticks).
 * False when they are still busy after `timeoutMs`.
 */
export async function settle(procs, timeoutMs = 10_000) {
  const used = () => procs.reduce((sum, p) => sum + cpuSeconds(p.child.pid), 0);
  const deadline = performance.now() + timeoutMs;
  let before = used();
  while (performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    const now = used();
    if (now - before <= 0.02) return true;
    before = now;
  }
  return false;
}

/**
 * What the server processes spent while a run lasted: the peak of their summed RSS, and CPU and
 * peak RSS by role. CPU per answered request is the figure that says which process bounds a
 * deployment's throughput, and it is far steadier between runs on a shared VM than requests per
 * second. One timer reads every process's RSS.
 */
export function sampleProcesses(procs, everyMs = 200) {
  const role = (p) => p.name.split(" ")[0];
  const cpu0 = procs.map((p) => cpuSeconds(p.child.pid));
  const peaks = procs.map(() => 0);
  let peakTotal = 0;
  const tick = () => {
    let total = 0;
    procs.forEach((p, i) => {
      const rss = rssBytes(p.child.pid);
      peaks[i] = Math.max(peaks[i], rss);
      total += rss;
    });
    peakTotal = Math.max(peakTotal, total);
  };
  tick();
  const timer = setInterval(tick, everyMs);
  return {
    /** `requests`: how many were answered while the run lasted. */
    stop(requests) {
      clearInterval(timer);
      tick();
      const processes = {};
      procs.forEach((p, i) => {
        const cpuMs = (cpuSeconds(p.child.pid) - cpu0[i]) * 1000;
        processes[role(p)] = { cpu_ms_per_req: requests > 0 ? cpuMs / requests : 0, rss_mb: peaks[i] / 2 ** 20 };
      });
      return { peakMb: peakTotal / 2 ** 20, processes };
    },
  };
}

/**
 * One measured run: `load(options)` while sampleProcesses() watches `procs`; the load's figures
 * (`m`), with the peak summed RSS and CPU and RSS by role for the requests answered meanwhile.
 */
export async function measuredRun(procs, options) {
  const sampling = sampleProcesses(procs);
  const t0 = performance.now();
  const m = await load(options);
  return { m, ...sampling.stop((m.rps * (performance.now() - t0)) / 1000) };
}

/** Samples the summed RSS of `pids` every `everyMs`; stop() returns the peak in MB and the samples. */
export function sampleRss(pids, everyMs = 200) {
  let peak = 0;
  const samples = [];
  const t0 = Date.now();
  const tick = () => {
    const total = pids.reduce((s, pid) => s + rssBytes(pid), 0);
    samples.push({ t_s: (Date.now() - t0) / 1000, rss_mb: total / 2 ** 20 });
    if (total > peak) peak = total;
  };
  tick();
  const timer = setInterval(tick, everyMs);
  return {
    stop() {
      clearInterval(timer);
      tick();
      return { peakMb: peak / 2 ** 20, samples };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Load

export function percentile(sorted, p) {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/**
 * One autocannon run. Latencies are taken from every response (float milliseconds; autocannon's
 * own histogram keeps whole milliseconds), and any non-2xx, socket error or timeout is an error.
 */
export async function load({ url, requests, load, seconds }) {
  if (load === "rate-200" && process.env.BENCH_RATE_TOOL !== "autocannon") return paced({ url, requests, rate: RATE, seconds });
  const opts = {
    url,
    requests,
    duration: seconds,
    connections: load === "saturation" ? SATURATION_CONNECTIONS : RATE_CONNECTIONS,
    pipelining: 1,
    timeout: 10,
    // autocannon only notices the end of a run on a sample tick: keep ticks short so a run
    // lasts its duration, not the next whole second.
    sampleInt: Math.max(50, Math.min(1000, (seconds * 1000) / 4)),
  };
  if (load === "rate-200") opts.overallRate = RATE;
  const lat = [];
  let ok = 0;
  let bad = 0;
  const firstBad = [];
  const t0 = process.hrtime.bigint();
  const instance = autocannon(opts);
  instance.on("response", (_client, statusCode, _bytes, responseTime) => {
    if (statusCode >= 200 && statusCode < 300) {
      ok++;
      lat.push(responseTime);
    } else {
      bad++;
      if (firstBad.length < 3) firstBad.push(statusCode);
    }
  });
  const result = await instance;
  const elapsed = Number(process.hrtime.bigint() - t0) / 1e9;
  lat.sort((a, b) => a - b);
  const errors = result.errors + result.timeouts + result.non2xx;
  return {
    rps: ok / elapsed,
    p50_ms: percentile(lat, 50),
    p97_5_ms: percentile(lat, 97.5),
    p99_ms: percentile(lat, 99),
    errors: Math.max(errors, bad),
    detail: bad || errors ? `non-2xx ${result.non2xx} (first: ${firstBad.join(",")}), socket errors ${result.errors}, timeouts ${result.timeouts}` : "",
  };
}

/**
 * A fixed offered load, open loop: one request every 1000/rate ms on a uniform schedule (not
 * autocannon's overallRate, which sends each connection's whole per-second quota back to back at
 * the start of every second, i.e. a 10-connection burst that measures queueing, not latency).
 * Latency runs from the send to the last byte of the answer. The schedule does not wait for
 * answers (a slow server gets more requests in flight, as from independent callers); a send the
 * generator itself made late is sent at once, so the schedule catches up.
 */
export async function paced({ url, requests, rate, seconds }) {
  // undici, not node:http: reading the batch's 405 KB answers, node:http's client spent 0.7 to
  // 1.4 ms of CPU per answer (mostly its garbage collection), undici 0.7 to 0.9, on the two cores
  // the servers use too.
  const pool = new Pool(url, { connections: 64, headersTimeout: 10_000, bodyTimeout: 10_000 });
  const interval = 1000 / rate;
  const total = Math.max(1, Math.round(rate * seconds));
  const lat = [];
  let ok = 0;
  let bad = 0;
  const firstBad = [];
  const bodies = requests.map((r) => (r.body === undefined ? undefined : Buffer.from(r.body)));
  const one = async (i) => {
    const sent = performance.now();
    const r = requests[i % requests.length];
    try {
      const res = await pool.request({ method: r.method, path: r.path, headers: r.headers, body: bodies[i % requests.length] });
      // Read to the last byte (dump's default limit would cut a batch answer short).
      await res.body.dump({ limit: Number.MAX_SAFE_INTEGER });
      if (res.statusCode >= 200 && res.statusCode < 300) {
        ok++;
        lat.push(performance.now() - sent);
      } else {
        bad++;
        if (firstBad.length < 3) firstBad.push(res.statusCode);
      }
    } catch {
      bad++;
    }
  };
  const pending = [];
  const t0 = performance.now();
  for (let i = 0; i < total; i++) {
    const scheduled = t0 + i * interval;
    const wait = scheduled - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    else if (wait > 0) await new Promise((r) => setImmediate(r));
    pending.push(one(i));
  }
  await Promise.all(pending);
  const elapsed = (performance.now() - t0) / 1000;
  await pool.close();
  lat.sort((a, b) => a - b);
  return {
    rps: ok / elapsed,
    p50_ms: percentile(lat, 50),
    p97_5_ms: percentile(lat, 97.5),
    p99_ms: percentile(lat, 99),
    errors: bad,
    detail: bad ? `non-2xx or failed ${bad} (first statuses: ${firstBad.join(",")})` : "",
  };
}

export const JSON_HEADERS = { "content-type": "application/json", "x-api-key": SANDBOX_KEY };

/** The routes measured on both deployments, each a cycle of real requests. */
/**
 * `proKey`: a document 2 key of an active subscription; `liveKey`: a document 1 Pro live key, whose
 * every call is counted in the monthly quota and committed before it is answered (issue 31).
 * `batchSize`: projects per batch request, the first of the 100 measured (--quick sends 10).
 */
export function routes(proKey, liveKey, batchSize = 100) {
  const batch = JSON.stringify({ projects: batchOf100().projects.slice(0, batchSize) });
  return [
    { route: "POST /api/v1/determine", loads: ["saturation", "rate-200"], requests: SITES.map((s) => ({ method: "POST", path: "/api/v1/determine", headers: JSON_HEADERS, body: JSON.stringify(s) })) },
    {
      route: "POST /api/v1/determine (live key)",
      loads: ["saturation", "rate-200"],
      requests: SITES.map((s) => ({ method: "POST", path: "/api/v1/determine", headers: { "content-type": "application/json", authorization: `Bearer ${liveKey}` }, body: JSON.stringify(s) })),
    },
    { route: "GET /api/v1/requirements", loads: ["saturation"], requests: REQUIREMENT_QUERIES.map((q) => ({ method: "GET", path: `/api/v1/requirements?${q}`, headers: { "x-api-key": SANDBOX_KEY } })) },
    { route: "POST /api/v1/determine/nwp", loads: ["saturation", "rate-200"], requests: PROJECTS.map((p) => ({ method: "POST", path: "/api/v1/determine/nwp", headers: JSON_HEADERS, body: JSON.stringify(p) })) },
    { route: "POST /api/v1/determine/batch", loads: ["saturation", "rate-200"], requests: [{ method: "POST", path: "/api/v1/determine/batch", headers: { ...JSON_HEADERS, "x-api-key": proKey }, body: batch }] },
  ];
}

// ---------------------------------------------------------------------------------------------
// Deployments

export function stateDirWithProKey() {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "permits-bench-state-"));
  const env = { ...process.env, STATE_DIR: stateDir, REDIS_URL: "", LEGACY_KEY_SECRET, PAYMENT_PROVIDER: "local" };
  const cli = path.join(ROOT, "services/entitlement/dist/cli.js");
  execFileSync(process.execPath, [cli, "subscription", "set", "sub_bench", "active"], { env, stdio: ["ignore", "ignore", "pipe"] });
  const key = execFileSync(process.execPath, [cli, "legacy", "sub_bench"], { env, stdio: ["ignore", "pipe", "pipe"] }).toString().trim();
  if (!/^nwp_\S+$/.test(key)) throw new Error(`the entitlement CLI printed no document 2 key: ${key}`);
  const created = execFileSync(process.execPath, [cli, "create", "--kind", "live", "--plan", "pro", "--label", "bench", "--json"], { env, stdio: ["ignore", "pipe", "pipe"] }).toString();
  const liveKey = JSON.parse(created).key;
  if (typeof liveKey !== "string") throw new Error(`the entitlement CLI printed no live key: ${created}`);
  return { stateDir, key, liveKey };
}

/** The environment of every server process: the benchmark policies, the shared key store, no Redis, default log level. */
const BENCH_GATEWAY_TOKEN = "bench-gateway-token-0123456789abcdef";

export function serverEnv(stateDir) {
  // Service-to-service credentials: a gateway token, and the services' list that admits it.
  const env = { STATE_DIR: stateDir, REDIS_URL: "", TIERS_FILE, LEGACY_KEY_SECRET, PAYMENT_PROVIDER: "local", HOST: "127.0.0.1", GATEWAY_TOKEN: BENCH_GATEWAY_TOKEN, INTERNAL_TOKENS: `gateway:gateway:${BENCH_GATEWAY_TOKEN}` };
  for (const k of [...SERVICES.map(urlVariable), "LOG_LEVEL", "PORT"]) env[k] = undefined;
  return env;
}

export async function startEmbedded(stateDir, nodeArgs = []) {
  const port = await freePort();
  const gw = startProcess("gateway (embedded)", "gateway/dist/main.js", { ...serverEnv(stateDir), PORT: String(port) }, nodeArgs);
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitReady(`${baseUrl}/readyz`, [gw]);
  return { baseUrl, procs: [gw] };
}

export async function startDistributed(stateDir, nodeArgs = []) {
  const env = serverEnv(stateDir);
  const procs = [];
  const urls = {};
  for (const s of SERVICES) {
    const port = await freePort();
    procs.push(startProcess(s, `services/${s}/dist/main.js`, { ...env, PORT: String(port) }, nodeArgs));
    urls[urlVariable(s)] = `http://127.0.0.1:${port}`;
  }
  const port = await freePort();
  procs.push(startProcess("gateway (distributed)", "gateway/dist/main.js", { ...env, ...urls, PORT: String(port) }, nodeArgs));
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitReady(`${baseUrl}/readyz`, procs);
  return { baseUrl, procs };
}

export async function startCeiling(bodiesFile) {
  const port = await freePort();
  const p = startProcess("ceiling", "bench/ceiling.mjs", { PORT: String(port), CEILING_BODIES: bodiesFile });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitReady(`${baseUrl}/readyz`, [p]);
  return { baseUrl, procs: [p] };
}

/** The real answers of a deployment to the determine mix, in the order autocannon sends them. */
export async function realDeterminations(baseUrl) {
  const bodies = [];
  for (const s of SITES) {
    const res = await fetch(`${baseUrl}/api/v1/determine`, { method: "POST", headers: JSON_HEADERS, body: JSON.stringify(s) });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`POST /api/v1/determine ${JSON.stringify(s)} answered ${res.status}: ${text.slice(0, 500)}`);
    bodies.push(text);
  }
  return bodies;
}

export function log(s) {
  process.stderr.write(s + "\n");
}

export function fmt(n, digits) {
  return n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}
