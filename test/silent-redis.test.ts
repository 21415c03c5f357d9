// A Redis that stops answering (SIGSTOP: the socket stays open, nothing comes back) must not hold
// requests: a keyed caller gets the documented 503 within REDIS_TIMEOUT_MS, keyless callers keep
// being answered by the per-instance limiter, and everything resumes when Redis does.
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { KeyKind, Plan } from "@permits/proto/entitlement/v1/entitlement";
import { startEmbedded, type Embedded } from "./support/embedded.js";
import { freePort, generousTiersFile, startRedisServer, waitFor } from "./support/processes.js";

const TIMEOUT_MS = 250;

describe.skipIf(!inject("prerequisites").redisServer)("a silent Redis", () => {
  let redis: ChildProcess;
  let gw: Embedded;
  let key: string;
  beforeAll(async () => {
    const port = await freePort();
    redis = await startRedisServer(port);
    gw = await startEmbedded({ REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_TIMEOUT_MS: String(TIMEOUT_MS), TIERS_FILE: generousTiersFile() });
    key = (await gw.clients.entitlement.issueKey({ kind: KeyKind.LIVE, plan: Plan.PRO, label: "silent" })).secret;
  }, 30_000);
  afterAll(async () => {
    redis?.kill("SIGCONT");
    await gw?.close();
    redis?.kill("SIGKILL");
  });

  const call = (headers: Record<string, string>) =>
    gw.app.inject({ method: "POST", url: "/api/v1/determine", payload: JSON.stringify({ state: "NM", activity: "construction", acres: 3 }), headers: { "content-type": "application/json", ...headers } });

  it("answers a keyed caller 503 with Retry-After within the Redis timeout, keyless callers 200, and recovers", async () => {
    expect((await call({ "x-api-key": key })).statusCode).toBe(200);
    redis.kill("SIGSTOP");
    try {
      const started = performance.now();
      const res = await call({ "x-api-key": key });
      const elapsed = performance.now() - started;
      expect(res.statusCode).toBe(503);
      expect(res.headers["retry-after"]).toBeDefined();
      expect(res.body).not.toMatch(/timeout|redis|127\.0\.0\.1/i);
      // The timeout plus scheduling slack, far from the seconds a silent socket would hold it.
      expect(elapsed).toBeLessThan(TIMEOUT_MS + 400);
      const anonymous = await call({});
      expect(anonymous.statusCode).toBe(200);
    } finally {
      redis.kill("SIGCONT");
    }
    await waitFor(async () => (await call({ "x-api-key": key })).statusCode === 200, 10_000, "keyed calls answered again");
  });
});
