// Dependencies that stop answering (issue 31, section 3), under a steady load:
// - Redis frozen (SIGSTOP: the socket stays open, nothing answers) then thawed. Keyless and
//   sandbox callers keep getting 200 (the rate limiter falls back); keyed callers get the
//   documented 503, and after the breaker opens at once instead of after REDIS_TIMEOUT_MS.
// - The entitlement service frozen, then killed, then restarted. Keyless and sandbox callers on
//   both surfaces never need it (200 throughout); keyed callers get the documented 503, at once
//   once the gateway's breaker on entitlement is open, and 200 again after the restart.
// The figures include the latency of the outage answers (README, "Circuit breakers").
import { execFile, type ChildProcess } from "node:child_process";
import { promisify } from "node:util";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort, ROOT, startRedisServer } from "../support/processes.js";
import { distributed, JSON_HEADERS, killHard, PROJECT, SANDBOX, SITE, until, when } from "./deploy.js";
import { now, startLoad, type Outcome, type Target } from "./load.js";
import { checkAnswer, isDocumented503, ms, share, statusCounts, Violations, type Row, type ScenarioOptions } from "./row.js";
import { stopChild, track, trackChild } from "./resources.js";

const execFileAsync = promisify(execFile);

/** REDIS_TIMEOUT_MS in the Redis scenario (the documented default). */
export const REDIS_TIMEOUT_MS = 250;
/**
 * RPC_TIMEOUT_MS in the entitlement scenario: shorter than the default 5 s so the breaker opens
 * within the run, long enough that a busy machine's slow NWP answers are not timeouts.
 */
export const RPC_TIMEOUT_MS = 2000;
/** Both scenarios need a fault longer than the timeout and the breaker's opening (the short form's 3 s is not). */
export const FROZEN_MIN_DURATION_MS = 8000;
/**
 * What "at once" means: once the breaker can be open, the median outage answer is under this, or
 * under the keyless answers' median in the same window plus half the timeout, whichever is more
 * (a busy 2-core machine slows every answer alike; waiting the timeout is what must not happen).
 */
export const FAST_MS = 100;

async function createKey(env: Record<string, string>): Promise<string> {
  const { stdout } = await execFileAsync(process.execPath, [path.join(ROOT, "services/entitlement/dist/cli.js"), "create", "--kind", "live", "--plan", "pro", "--label", "faults-frozen"], { env: { ...process.env, ...env } });
  return /svc_live_[A-Za-z0-9]+/.exec(stdout)![0];
}

function targetsOf(base: string, key: string): Target[] {
  return [
    { label: "anonymous", surface: "doc1", method: "POST", url: `${base}/api/v1/determine`, headers: JSON_HEADERS, body: SITE },
    { label: "sandbox", surface: "doc1", method: "POST", url: `${base}/api/v1/determine`, headers: { ...JSON_HEADERS, "x-api-key": SANDBOX }, body: SITE },
    { label: "sandbox nwp", surface: "doc2", method: "POST", url: `${base}/api/v1/determine/nwp`, headers: { ...JSON_HEADERS, "x-api-key": SANDBOX }, body: PROJECT },
    { label: "keyed", surface: "doc1", method: "POST", url: `${base}/api/v1/determine`, headers: { ...JSON_HEADERS, "x-api-key": key }, body: SITE },
  ];
}

export async function redisFrozen({ durationMs, rate }: ScenarioOptions): Promise<Row> {
  const port = await freePort();
  let redis: ChildProcess | undefined = trackChild(await startRedisServer(port));
  const stopRedis = track(async () => {
    if (!redis) return;
    redis.kill("SIGCONT"); // a stopped process cannot act on SIGTERM
    await stopChild(redis);
    redis = undefined;
  });
  try {
    const REDIS_URL = `redis://127.0.0.1:${port}`;
    const key = await createKey({ REDIS_URL });
    const d = await distributed({ REDIS_URL, REDIS_TIMEOUT_MS: String(REDIS_TIMEOUT_MS) });
    try {
      const t0 = now();
      const load = startLoad({ rate, durationMs, pick: (i) => targetsOf(d.baseUrl, key)[i % 4] });
      await until(t0, durationMs * 0.2);
      const frozenAt = now();
      redis.kill("SIGSTOP");
      await until(t0, durationMs * 0.7);
      const thawedAt = now();
      redis.kill("SIGCONT");
      const outcomes = await load.done;
      return judge("Redis frozen (SIGSTOP) then thawed", outcomes, { t0, faultAt: frozenAt, backAt: thawedAt, phases: [["frozen", frozenAt]], waitMs: REDIS_TIMEOUT_MS, settleMs: settleMs(REDIS_TIMEOUT_MS, rate) });
    } finally {
      await d.close();
    }
  } finally {
    await stopRedis();
  }
}

export async function entitlementFrozenKilled({ durationMs, rate }: ScenarioOptions): Promise<Row> {
  const stateDir = mkdtempSync(path.join(os.tmpdir(), "permits-faults-frozen-"));
  const removeState = track(async () => rmSync(stateDir, { recursive: true, force: true }));
  try {
    const key = await createKey({ STATE_DIR: stateDir, REDIS_URL: "" });
    const d = await distributed({ STATE_DIR: stateDir, RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS) });
    const entitlement = () => d.proc("entitlement");
    try {
      const t0 = now();
      const load = startLoad({ rate, durationMs, pick: (i) => targetsOf(d.baseUrl, key)[i % 4] });
      await until(t0, durationMs * 0.1);
      const frozenAt = now();
      entitlement().child.kill("SIGSTOP");
      await until(t0, durationMs * 0.7);
      const killedAt = now();
      await killHard(entitlement()); // SIGKILL ends a stopped process too
      await until(t0, durationMs * 0.85);
      const restartAt = now();
      trackChild(d.restart("entitlement").child);
      const outcomes = await load.done;
      const row = judge("entitlement frozen, killed, restarted", outcomes, { t0, faultAt: frozenAt, backAt: restartAt, phases: [["frozen", frozenAt], ["killed", killedAt]], waitMs: RPC_TIMEOUT_MS, settleMs: settleMs(RPC_TIMEOUT_MS, rate) });
      // After the load: the restarted service answers keyed calls again.
      const keyedOk = await when(async () => (await fetch(`${d.baseUrl}/api/v1/determine`, { method: "POST", body: SITE, headers: { ...JSON_HEADERS, "x-api-key": key } })).status === 200, 10_000, 100);
      row.figures["keyed 200 after the restart"] = keyedOk !== undefined;
      if (keyedOk === undefined) row.violations.push("keyed: no 200 within 10 s after entitlement restarted");
      return row;
    } finally {
      entitlement().child.kill("SIGCONT");
      await d.close();
    }
  } finally {
    await removeState();
  }
}

interface Timeline {
  t0: number;
  faultAt: number;
  /** When the dependency was given back (thawed, restarted). */
  backAt: number;
  /** Named phases of the fault, each from its start to the next one's (the last to backAt). */
  phases: [string, number][];
  /** The timeout a call without a breaker would wait. */
  waitMs: number;
  /** From the fault to when the breaker can have opened (settleMs()). */
  settleMs: number;
}

/**
 * When the breaker can have opened: its CIRCUIT_BREAKER_FAILURES (5) keyed calls sent (a quarter
 * of the load is keyed), each then waiting the timeout, plus scheduling. Calls already waiting
 * when the dependency froze wait their timeout whatever a breaker does.
 */
function settleMs(waitMs: number, rate: number): number {
  return waitMs + (5 * 4 * 1000) / rate + 200;
}

const percentile = (xs: number[], p: number): number => (xs.length === 0 ? NaN : [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]);

function judge(scenario: string, outcomes: Outcome[], t: Timeline): Row {
  const v = new Violations(t.t0);
  const keyless = outcomes.filter((o) => o.label !== "keyed");
  // Keyed answers given while the dependency was away, to requests sent before it was back.
  const outage = outcomes.filter((o) => o.label === "keyed" && o.endedAt >= t.faultAt && o.startedAt < t.backAt);
  const firstOkAfter = outcomes.filter((o) => o.label === "keyed" && o.status === 200 && o.startedAt >= t.backAt).map((o) => o.endedAt);
  const recoveredAt = firstOkAfter.length ? Math.min(...firstOkAfter) : undefined;
  for (const o of outcomes) {
    checkAnswer(o, v);
    if (o.error) v.add(`${o.label}: no answer (${o.error})`, o.startedAt);
    if (o.status === undefined || o.status === 200) continue;
    if (o.label !== "keyed") v.add(`${o.label}: ${o.status} ${o.code ?? ""} (keyless callers must not depend on the failed dependency)`, o.startedAt);
    else if (!isDocumented503(o)) v.add(`keyed: ${o.status} ${o.code ?? ""} is not the documented 503`, o.startedAt);
    else if (o.endedAt < t.faultAt || (recoveredAt !== undefined && o.startedAt > recoveredAt)) v.add("keyed: 503 outside the outage", o.startedAt);
  }
  const outage503 = outage.filter((o) => o.status === 503);
  if (outage503.length === 0) v.add("no keyed 503 while the dependency was away (the fault did not show)");
  const latency = outage503.map((o) => o.endedAt - o.startedAt);
  const waited = latency.filter((x) => x >= t.waitMs * 0.9).length;
  const median = percentile(latency, 50);
  // Once the breaker can have opened, outage answers come at once (probes aside).
  const settled = outage503.filter((o) => o.startedAt >= t.faultAt + t.settleMs).map((o) => o.endedAt - o.startedAt);
  const settledMedian = percentile(settled, 50);
  // The yardstick: keyless answers in the same window, which wait on nothing that failed. On a
  // busy machine both are slow; an answer that waited the timeout is slower by the timeout.
  const sameWindow = (o: Outcome) => o.startedAt >= t.faultAt + t.settleMs && o.startedAt < t.backAt;
  const baseline = percentile(keyless.filter((o) => sameWindow(o) && o.status === 200).map((o) => o.endedAt - o.startedAt), 50);
  const bound = Math.max(FAST_MS, (Number.isNaN(baseline) ? 0 : baseline) + t.waitMs / 2);
  if (settled.length === 0) v.add("no keyed 503 after the breaker could open (the outage was too short to tell)");
  else if (!(settledMedian < bound)) v.add(`median outage answer once the breaker could be open ${ms(settledMedian)} ms, not under ${ms(bound)} ms (keyless answers' median then + half the timeout): the breaker did not answer at once`);
  const figures: Row["figures"] = {};
  t.phases.forEach(([name, start], i) => {
    const end = t.phases[i + 1]?.[1] ?? t.backAt;
    // By when the request was sent; the first phase also takes those sent before the fault.
    const inPhase = outage503.filter((o) => (i === 0 || o.startedAt >= start) && o.startedAt < end).map((o) => o.endedAt - o.startedAt);
    figures[`${name} (ms)`] = ms(end - start);
    figures[`${name}: keyed 503s`] = inPhase.length;
    figures[`${name}: 503 latency p50/p99/max (ms)`] = inPhase.length ? `${ms(percentile(inPhase, 50))}/${ms(percentile(inPhase, 99))}/${ms(Math.max(...inPhase))}` : "-";
  });
  Object.assign(figures, {
    "keyless+sandbox sent": keyless.length,
    "keyless+sandbox non-200": keyless.filter((o) => o.status !== 200).length,
    // Every keyed 503, the fault's and those until the restarted service answered.
    "keyed 503 documented (Retry-After)": outcomes.filter((o) => o.label === "keyed" && isDocumented503(o)).length,
    [`outage 503s that waited the timeout (${t.waitMs} ms)`]: `${waited} (${share(waited, outage503.length)})`,
    "outage 503 latency p50/p99, all (ms)": `${ms(median)}/${ms(percentile(latency, 99))}`,
    [`outage 503s from +${ms(t.settleMs)} ms (breaker can be open)`]: settled.length,
    "outage 503 latency p50/p99, from then (ms)": settled.length ? `${ms(settledMedian)}/${ms(percentile(settled, 99))}` : "-",
    "keyless 200 latency p50, from then (ms)": ms(baseline),
    "given back -> keyed 200 (ms)": recoveredAt === undefined ? "never" : ms(recoveredAt - t.backAt),
  });
  return { scenario, sent: outcomes.length, statuses: statusCounts(outcomes), violations: v.list(), figures };
}
