// Many gateway replicas share one Redis: a paid plan's monthly ceiling holds exactly across
// them, and a Redis outage degrades to per-instance limits without failing requests.
import { execFileSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createClient } from "redis";
import { editedTiersFile, type TierPolicy } from "./support/tiers.js";
import { ensureBuilt, freePort, ROOT, startProcess, startRedisServer, waitFor, type Proc } from "./support/processes.js";

const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const site = JSON.stringify({ state: "NM", activity: "construction", acres: 3 });

function tiersWith(overrides: Record<string, TierPolicy["windows"]>): string {
  return editedTiersFile((policies) => policies.map((p) => (overrides[p.id] ? { ...p, windows: overrides[p.id] } : p)));
}

async function startGateways(n: number, env: Record<string, string>): Promise<{ urls: string[]; procs: Proc[] }> {
  const procs: Proc[] = [];
  const urls: string[] = [];
  for (let i = 0; i < n; i++) {
    const port = await freePort();
    procs.push(startProcess(`gateway-${i}`, "gateway/dist/main.js", { ...env, PORT: String(port) }));
    urls.push(`http://127.0.0.1:${port}`);
  }
  for (const [i, u] of urls.entries()) {
    await waitFor(async () => (await fetch(`${u}/readyz`)).status === 200, 20_000, `gateway ${i}`).catch((e) => {
      throw new Error(`${e.message}\n${procs[i].output()}`);
    });
  }
  return { urls, procs };
}

async function stop(procs: Proc[]) {
  await Promise.all(procs.map(async (p) => {
    if (p.child.exitCode !== null) return;
    p.child.kill("SIGTERM");
    await once(p.child, "exit");
  }));
}

describe.skipIf(!inject("prerequisites").redis)("three gateway replicas on one Redis", () => {
  const prefix = `permits:test:${process.pid}:${Date.now()}:`;
  let procs: Proc[] = [];
  let urls: string[] = [];
  let liveKey = "";
  beforeAll(async () => {
    ensureBuilt();
    const env = {
      REDIS_URL,
      ENTITLEMENT_REDIS_PREFIX: prefix,
      TIERS_FILE: tiersWith({ "stormwater.pro": [{ name: "minute", limit: 100000 }, { name: "month", limit: 1000, quota: true }] }),
      // This measures shared counting, not the per-instance fallback (tested below). With the whole
      // suite running on 2 cores, one decision among 1,500 concurrent calls can take longer than the
      // 250 ms default; the fallback then admits on its own count (1,014 of 1,500 admitted, seen once).
      REDIS_TIMEOUT_MS: "5000",
    };
    const out = execFileSync(process.execPath, [path.join(ROOT, "services/entitlement/dist/cli.js"), "create", "--kind", "live", "--plan", "pro", "--label", "replicas"], { env: { ...process.env, ...env }, encoding: "utf8" });
    liveKey = /svc_live_[A-Za-z0-9]+/.exec(out)![0];
    ({ urls, procs } = await startGateways(3, env));
  }, 60_000);
  afterAll(async () => {
    await stop(procs);
    const c = createClient({ url: REDIS_URL });
    await c.connect();
    for await (const keys of c.scanIterator({ MATCH: `${prefix}*` })) if (keys.length) await c.del(keys);
    await c.close();
  });

  it("admits and bills exactly 1,000 of 1,500 concurrent calls under a 1,000 monthly ceiling", async () => {
    const results: number[] = [];
    let quotaUsedMax = 0;
    const calls = Array.from({ length: 1500 }, (_, i) => async () => {
      const res = await fetch(`${urls[i % 3]}/api/v1/determine`, { method: "POST", body: site, headers: { "content-type": "application/json", "x-api-key": liveKey } });
      results.push(res.status);
      if (res.status === 200) quotaUsedMax = Math.max(quotaUsedMax, Number(res.headers.get("x-quota-used")));
      await res.arrayBuffer();
    });
    // 150 in flight at a time across the three replicas.
    const queue = [...calls];
    await Promise.all(Array.from({ length: 150 }, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) await next();
    }));
    expect(results.filter((s) => s === 200)).toHaveLength(1000);
    expect(results.filter((s) => s === 429)).toHaveLength(500);
    expect(quotaUsedMax).toBe(1000);
    for (const u of urls) {
      const usage = await (await fetch(`${u}/api/v1/usage`, { headers: { "x-api-key": liveKey } })).json();
      expect(usage.data.quota).toMatchObject({ limit: 1000, used: 1000, remaining: 0 });
    }
  }, 60_000);
});

describe.skipIf(!inject("prerequisites").redisServer)("Redis stopped mid-run", () => {
  let redis: ChildProcess | undefined;
  let port = 0;
  let procs: Proc[] = [];
  let urls: string[] = [];
  let liveKey = "";
  const startRedis = async () => {
    redis = await startRedisServer(port);
  };
  beforeAll(async () => {
    ensureBuilt();
    port = await freePort();
    await startRedis();
    const stateDir = mkdtempSync(path.join(os.tmpdir(), "permits-state-"));
    const env = { REDIS_URL: `redis://127.0.0.1:${port}`, STATE_DIR: stateDir, TIERS_FILE: tiersWith({ "stormwater.anonymous": [{ name: "minute", limit: 1000 }, { name: "day", limit: 100000 }] }) };
    const out = execFileSync(process.execPath, [path.join(ROOT, "services/entitlement/dist/cli.js"), "create", "--kind", "live", "--plan", "pro"], { env: { ...process.env, ...env }, encoding: "utf8" });
    liveKey = /svc_live_[A-Za-z0-9]+/.exec(out)![0];
    ({ urls, procs } = await startGateways(2, env));
    rmSync(stateDir, { recursive: true, force: true });
  }, 60_000);
  afterAll(async () => {
    await stop(procs);
    redis?.kill("SIGKILL");
  });

  const remaining = async (u: string) => {
    const res = await fetch(`${u}/api/v1/determine`, { method: "POST", body: site, headers: { "content-type": "application/json" } });
    await res.arrayBuffer();
    return { status: res.status, remaining: Number(res.headers.get("x-ratelimit-remaining")) };
  };

  it("keeps answering from the per-instance fallback, then resumes shared counting", async () => {
    const a = await remaining(urls[0]);
    const b = await remaining(urls[1]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.remaining).toBe(a.remaining - 1); // shared: the second replica saw the first call

    redis!.kill("SIGKILL");
    await once(redis!, "exit");
    for (let i = 0; i < 5; i++) {
      const t0 = Date.now();
      const r = await remaining(urls[i % 2]);
      expect(r.status).toBe(200);
      expect(Date.now() - t0).toBeLessThan(1000);
    }
    // Keys live in Redis too: a keyed call cannot be authenticated, and says so as a retryable 503.
    const keyed = await fetch(`${urls[0]}/api/v1/determine`, { method: "POST", body: site, headers: { "content-type": "application/json", "x-api-key": liveKey } });
    expect(keyed.status).toBe(503);
    expect(keyed.headers.get("retry-after")).toBe("2");
    const body = await keyed.json();
    expect(body.error.code).toBe("internal");
    expect(body.error.message).toMatch(/retry/i);

    await startRedis();
    await waitFor(async () => {
      const x = await remaining(urls[0]);
      const y = await remaining(urls[1]);
      return x.status === 200 && y.remaining === x.remaining - 1;
    }, 15_000, "shared counting to resume");
    // The Redis restarted empty (no persistence in this test), so the key is gone: refused, not 503.
    await waitFor(async () => {
      const after = await fetch(`${urls[0]}/api/v1/determine`, { method: "POST", body: site, headers: { "content-type": "application/json", "x-api-key": liveKey } });
      await after.arrayBuffer();
      return after.status === 401;
    }, 15_000, "the key store to answer again");
  }, 60_000);
});
