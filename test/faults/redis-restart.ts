// Redis killed and restarted under load, two gateways on it: A is the distributed deployment
// (entitlement and ratelimit as services), B a second gateway sharing A's engines but with its
// own in-process entitlement and ratelimit, so counting is shared between them only through Redis.
// Expected (docs/deployment.md, "Redis outage policy" and "Embedded state"): 0 failed anonymous or sandbox
// requests; a keyed caller gets the documented 503 with Retry-After until Redis answers again;
// then keyed calls succeed and A and B share counts again.
import { execFile, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { promisify } from "node:util";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort, ROOT, startGatewayProcess, startRedisServer, TEST_INTERNAL_TOKENS, TEST_TOKENS } from "../support/processes.js";
import { distributed, GATEWAY_ENV, JSON_HEADERS, PROJECT, SANDBOX, SITE, tiersFile, until, when } from "./deploy.js";
import { now, startLoad, type Outcome, type Target } from "./load.js";
import { checkAnswer, isDocumented503, ms, statusCounts, Violations, type Row, type ScenarioOptions } from "./row.js";
import { stopChild, track, trackChild } from "./resources.js";

const execFileAsync = promisify(execFile);

/** How long shared counting may take to resume after the restart (the clients' reconnect backoff is capped at 3 s). */
const RESUME_WITHIN_MS = 10_000;

export async function redisKillRestart({ durationMs, rate }: ScenarioOptions): Promise<Row> {
  const port = await freePort();
  // Persistence on (AOF, fsync on every write, as the compose file's Redis persists): the keys
  // and counts come back with the restart, so keyed callers can recover.
  const dir = mkdtempSync(path.join(os.tmpdir(), "permits-faults-redis-"));
  let redis: ChildProcess | undefined;
  const startRedis = async () => {
    redis = trackChild(await startRedisServer(port, ["--appendonly", "yes", "--appendfsync", "always", "--dir", dir]));
  };
  const stopRedis = track(async () => {
    if (redis) await stopChild(redis);
    rmSync(dir, { recursive: true, force: true });
  });
  try {
    await startRedis();
    const REDIS_URL = `redis://127.0.0.1:${port}`;
    const TIERS_FILE = tiersFile();
    const cli = async (...args: string[]) => {
      const { stdout } = await execFileAsync(process.execPath, [path.join(ROOT, "services/entitlement/dist/cli.js"), "create", ...args], { env: { ...process.env, REDIS_URL } });
      return /svc_(live|test)_[A-Za-z0-9]+/.exec(stdout)![0];
    };
    // The probe's key is used by the shared-counting probe only, so its count is the probe's alone.
    const [liveKey, probeKey] = await Promise.all([cli("--kind", "live", "--plan", "pro", "--label", "faults"), cli("--kind", "test", "--label", "faults-probe")]);
    const d = await distributed({ REDIS_URL, TIERS_FILE });
    let stopB: (() => Promise<void>) | undefined;
    try {
      const b = await startGatewayProcess({ ...GATEWAY_ENV, REDIS_URL, TIERS_FILE, STORMWATER_URL: d.serviceUrls.STORMWATER_URL, NWP_URL: d.serviceUrls.NWP_URL, GATEWAY_TOKEN: TEST_TOKENS.gateway, INTERNAL_TOKENS: TEST_INTERNAL_TOKENS });
      trackChild(b.proc.child);
      stopB = track(async () => {
        await stopChild(b.proc.child);
        b.stop(); // removes its state folder
      });
      const gateways = { A: d.baseUrl, B: b.baseUrl };
      const targets: Target[] = [];
      for (const [g, base] of Object.entries(gateways)) {
        targets.push(
          { label: `${g} anonymous`, surface: "doc1", method: "POST", url: `${base}/api/v1/determine`, headers: JSON_HEADERS, body: SITE },
          { label: `${g} sandbox`, surface: "doc2", method: "POST", url: `${base}/api/v1/determine/nwp`, headers: { ...JSON_HEADERS, "x-api-key": SANDBOX }, body: PROJECT },
          { label: `${g} keyed`, surface: "doc1", method: "POST", url: `${base}/api/v1/determine`, headers: { ...JSON_HEADERS, "x-api-key": liveKey }, body: SITE },
        );
      }
      // A's call then B's: B sees A's unit only if both count in Redis.
      const shared = async () => {
        const call = async (base: string) => {
          const res = await fetch(`${base}/api/v1/determine`, { method: "POST", body: SITE, headers: { ...JSON_HEADERS, "x-api-key": probeKey } });
          await res.arrayBuffer();
          return res.status === 200 ? Number(res.headers.get("x-ratelimit-remaining")) : NaN;
        };
        const a = await call(gateways.A);
        return (await call(gateways.B)) === a - 1;
      };
      const sharedBefore = (await when(shared, 5000, 50)) !== undefined;

      const t0 = now();
      const load = startLoad({ rate, durationMs, pick: (i) => targets[i % targets.length] });
      // Down from 25 % to 50 % of the run.
      await until(t0, durationMs * 0.25);
      const stopAt = now();
      // kill -9: connections drop without a goodbye, as in a crash.
      const gone = once(redis!, "exit");
      redis!.kill("SIGKILL");
      await gone;
      await until(t0, durationMs * 0.5);
      const restartAt = now();
      await startRedis();
      const answeringAt = now();
      const outcomes = await load.done;
      const sharedAt = await when(shared, RESUME_WITHIN_MS, 50);
      return judge(outcomes, { t0, stopAt, restartAt, answeringAt, sharedBefore, sharedAt });
    } finally {
      await stopB?.();
      await d.close();
    }
  } finally {
    await stopRedis();
  }
}

interface Timeline {
  t0: number;
  stopAt: number;
  restartAt: number;
  /** When the restarted Redis answered a client. */
  answeringAt: number;
  sharedBefore: boolean;
  /** When A and B were seen sharing a count again after the load; undefined if not within RESUME_WITHIN_MS. */
  sharedAt?: number;
}

function judge(outcomes: Outcome[], t: Timeline): Row {
  const v = new Violations(t.t0);
  const keyed = outcomes.filter((o) => o.label.endsWith("keyed"));
  // Per gateway: the first keyed 200 for a request sent after the restart (each reconnects on its own).
  const recoveredAt: Record<string, number | undefined> = {};
  for (const g of ["A", "B"]) {
    const oks = keyed.filter((o) => o.label.startsWith(g) && o.status === 200 && o.startedAt >= t.restartAt).map((o) => o.endedAt);
    recoveredAt[g] = oks.length ? Math.min(...oks) : undefined;
    if (!oks.length) v.add(`${g} keyed: no 200 after Redis restarted, before the load ended`);
  }
  let outage503 = 0;
  for (const o of outcomes) {
    checkAnswer(o, v);
    if (o.error) v.add(`${o.label}: no answer (${o.error})`, o.startedAt);
    if (o.status === undefined || o.status === 200) continue;
    if (!o.label.endsWith("keyed")) {
      v.add(`${o.label}: failed with ${o.status} ${o.code ?? ""}`, o.startedAt);
      continue;
    }
    const recovered = recoveredAt[o.label[0]];
    const inOutage = o.endedAt >= t.stopAt && (recovered === undefined || o.startedAt <= recovered);
    if (isDocumented503(o) && inOutage) outage503++;
    else v.add(`${o.label}: ${o.status} ${o.code ?? ""}${inOutage ? "" : " outside the outage"}`, o.startedAt);
  }
  if (outage503 === 0) v.add("no keyed 503 while Redis was down (the fault did not show)");
  if (!t.sharedBefore) v.add("A and B did not share counting before the fault (the probe cannot tell)");
  if (t.sharedAt === undefined) v.add(`A and B did not share counting again within ${RESUME_WITHIN_MS} ms after the load`);
  const recovery = (g: string) => (recoveredAt[g] === undefined ? "never" : ms(recoveredAt[g]! - t.restartAt));
  const anonSandbox = outcomes.filter((o) => !o.label.endsWith("keyed"));
  return {
    scenario: "Redis kill + restart (2 gateways)",
    sent: outcomes.length,
    statuses: statusCounts(outcomes),
    violations: v.list(),
    figures: {
      "Redis down (ms)": ms(t.answeringAt - t.stopAt),
      "anonymous+sandbox sent": anonSandbox.length,
      "anonymous+sandbox failed": anonSandbox.filter((o) => o.status !== 200).length,
      "keyed sent": keyed.length,
      "keyed 503 documented (Retry-After, internal)": outage503,
      "keyed Retry-After values": [...new Set(keyed.filter((o) => o.status === 503).map((o) => o.retryAfter))].join(",") || "-",
      "restart -> keyed 200 on A (ms)": recovery("A"),
      "restart -> keyed 200 on B (ms)": recovery("B"),
      "shared counting before": t.sharedBefore,
      "shared counting after": t.sharedAt !== undefined,
    },
  };
}
