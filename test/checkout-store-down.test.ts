// Checkout while the key store is away: Stripe's webhook gets a 5xx (so Stripe retries), the
// success page a retryable 503, nothing is half-written, and the retry after the store is back
// issues the keys once. The store is a private redis-server, killed and started again; in the
// embedded deployment too (its LMDB file has no outage to provoke: it is a local file).
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startFakeStripe, type FakeStripe } from "@permits/entitlement/testing";
import { DEPLOYMENTS, startTarget, type Target } from "./support/target.js";
import { freePort, startRedisServer, waitFor } from "./support/processes.js";
import { buy, postWebhook, signedEvent, STRIPE_API_KEY, stripeEnv, successPage } from "./support/checkout.js";

describe.skipIf(!inject("prerequisites").redisServer).each(DEPLOYMENTS)("checkout with the key store down, %s deployment", (name) => {
  let t: Target;
  let fake: FakeStripe;
  let redis: ChildProcess | undefined;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    redis = await startRedisServer(port);
    fake = await startFakeStripe(STRIPE_API_KEY);
    t = await startTarget(name, { ...stripeEnv(fake), REDIS_URL: `redis://127.0.0.1:${port}` });
  }, 90_000);
  afterAll(async () => {
    await t?.close();
    await fake?.close();
    redis?.kill("SIGKILL");
  });

  const stop = async () => {
    const r = redis!;
    await new Promise<void>((resolve) => {
      r.once("exit", () => resolve());
      r.kill("SIGKILL");
    });
  };

  it("answers the webhook 503 while the store is down, and issues once on Stripe's retry", async () => {
    const { sessionId } = await buy(t, fake, "stormwater_pro");
    const event = signedEvent("checkout.session.completed", fake.pay(sessionId));
    await stop();

    const down = await postWebhook(t, event);
    expect(down.statusCode).toBe(503);
    expect(Number(down.headers["retry-after"])).toBeGreaterThan(0);
    expect(down.body).not.toMatch(/ECONNREFUSED|redis/i);
    const page = await successPage(t, sessionId);
    expect(page.statusCode).toBe(503);

    redis = await startRedisServer(port);
    // Stripe retries until a 2xx; so does this, for as long as the service takes to reconnect.
    let retried = down;
    await waitFor(async () => (retried = await postWebhook(t, event)).statusCode === 200, 20_000, "the webhook to be handled after the store returned");
    expect(retried.json().outcome).toBe("issued");
    expect((await postWebhook(t, event)).json().outcome).toBe("already issued");
    expect((await t.entitlement.listKeys({})).keys.length).toBe(2);

    const shown = (await successPage(t, sessionId)).json().data;
    expect(shown.outcome).toBe("shown");
    const live = shown.keys.find((k: { kind: string }) => k.kind === "live").key;
    const call = await t.request({ method: "GET", url: "/api/v1/jurisdictions", headers: { authorization: `Bearer ${live}` } });
    expect(call.statusCode).toBe(200);
    expect(call.headers["x-quota-used"]).toBe("1");
  });
});
