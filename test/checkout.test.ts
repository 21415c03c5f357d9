// Checkout end to end, in both deployments, with the real Stripe SDK talking to the fake Stripe
// API and webhooks signed by the SDK's test-header helper: buy on /pricing, pay, get the keys
// once, use them on both surfaces, replay and race fulfilment, cancel, refuse a bad signature.
// The distributed deployment keeps its keys in Redis (unique prefix), the embedded one in LMDB.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createClient } from "redis";
import { startFakeStripe, type FakeStripe } from "@permits/entitlement/testing";
import { DEPLOYMENTS, startTarget, type Target } from "./support/target.js";
import { ROOT } from "./support/processes.js";
import { TEST_REDIS_URL } from "./support/prerequisites.js";
import { buy, postWebhook, PRICES, signedEvent, STRIPE_API_KEY, stripeEnv, successPage } from "./support/checkout.js";

const site = JSON.stringify({ state: "NM", activity: "construction", acres: 3 });
const project = JSON.stringify({ state: "CA", district: "SPK", activity: "residential-development", aquaticResourceType: "wetland", permanentImpactAcres: 0.3 });

describe.each(DEPLOYMENTS)("checkout on the %s deployment", (name) => {
  let t: Target;
  let fake: FakeStripe;
  const redis = name === "distributed" && inject("prerequisites").redis;
  const prefix = `permits:test:checkout:${process.pid}:${Date.now()}:`;

  beforeAll(async () => {
    fake = await startFakeStripe(STRIPE_API_KEY);
    t = await startTarget(name, {
      ...stripeEnv(fake),
      // The real tier table: the quota headers are the plan's.
      TIERS_FILE: path.join(ROOT, "data/tiers.json"),
      LEGACY_KEY_SECRET: "checkout-legacy-secret-0123456789",
      ...(redis ? { REDIS_URL: TEST_REDIS_URL, ENTITLEMENT_REDIS_PREFIX: prefix } : {}),
    });
  }, 90_000);
  afterAll(async () => {
    await t?.close();
    await fake?.close();
    if (redis) {
      const c = createClient({ url: TEST_REDIS_URL });
      await c.connect();
      for await (const keys of c.scanIterator({ MATCH: `${prefix}*` })) if (keys.length) await c.del(keys);
      await c.close();
    }
  });

  const keyCount = async () => (await t.entitlement.listKeys({})).keys.length;
  const determine = (key: string) =>
    t.request({ method: "POST", url: "/api/v1/determine", payload: site, headers: { "content-type": "application/json", authorization: `Bearer ${key}` } });
  const determineNwp = (key: string) =>
    t.request({ method: "POST", url: "/api/v1/determine/nwp", payload: project, headers: { "content-type": "application/json", "x-api-key": key } });

  it("/pricing offers each plan at Stripe's price, with a Buy button and how keys arrive", async () => {
    const res = await t.request({ method: "GET", url: "/pricing", headers: { accept: "text/html" } });
    expect(res.statusCode).toBe(200);
    for (const plan of ["stormwater_pro", "stormwater_scale", "nwp_pro"]) expect(res.body).toContain(`data-plan="${plan}"`);
    expect(res.body).toContain("$49.00 per month");
    expect(res.body).toContain("$199.00 per month");
    expect(res.body).toContain("$29.00 per month");
    expect(res.body).toContain("the success page shows your keys once");
  });

  it("buys Stormwater Pro: a subscription-mode session at the configured price; the webhook issues, replays and a racing success page issue nothing more, and the page shows the keys once", async () => {
    const { sessionId } = await buy(t, fake, "stormwater_pro");
    const session = fake.sessions.get(sessionId)!;
    expect(session.mode).toBe("subscription");
    expect(session.price).toBe(PRICES.stormwater_pro);
    expect(session.metadata).toEqual({ plan: "stormwater_pro" });
    expect(session.success_url).toMatch(/\/checkout\/success\?session_id=\{CHECKOUT_SESSION_ID\}$/);

    // Before payment the page says so (and reloads itself) and issues nothing.
    const before = await keyCount();
    expect((await successPage(t, sessionId)).json().data.outcome).toBe("not_paid");
    expect((await successPage(t, sessionId, "text/html")).body).toContain('<meta http-equiv="refresh" content="3">');

    const paid = fake.pay(sessionId);
    // A HEAD of the page (a link preview) spends nothing.
    expect((await t.request({ method: "HEAD", url: `/checkout/success?session_id=${sessionId}` })).statusCode).toBe(200);
    const event = signedEvent("checkout.session.completed", paid);
    // Five deliveries of one event (Stripe retries) racing two loads of the success page.
    const answers = await Promise.all([...Array.from({ length: 5 }, () => postWebhook(t, event)), successPage(t, sessionId), successPage(t, sessionId)]);
    for (const w of answers.slice(0, 5)) expect(w.statusCode).toBe(200);
    expect(answers.slice(0, 5).map((w) => w.json().outcome).filter((o) => o === "issued").length).toBeLessThanOrEqual(1);
    const pages = answers.slice(5).map((p) => p.json().data);
    expect(pages.map((p) => p.outcome).sort()).toEqual(["already_shown", "shown"]);
    // One issuance: a live and a test key, whoever won.
    expect(await keyCount()).toBe(before + 2);

    const shown = pages.find((p) => p.outcome === "shown");
    expect(shown.plan).toBe("stormwater_pro");
    expect(shown.subscription_id).toBe(paid.subscription);
    const live = shown.keys.find((k: { kind: string }) => k.kind === "live");
    const test = shown.keys.find((k: { kind: string }) => k.kind === "test");
    expect(live).toMatchObject({ surface: "stormwater", plan: "pro" });
    expect(live.key).toMatch(/^svc_live_[0-9A-Za-z]{40}$/);
    expect(test.key).toMatch(/^svc_test_[0-9A-Za-z]{40}$/);

    // A reload, and the webhook again: nothing shown, nothing issued.
    const again = await successPage(t, sessionId);
    expect(again.json().data).toMatchObject({ outcome: "already_shown", keys: [], subscription_id: null });
    expect(again.headers["cache-control"]).toBe("no-store");
    const html = await successPage(t, sessionId, "text/html");
    expect(html.body).toContain("Your keys were already shown");
    expect(html.body).not.toContain(live.key);
    expect((await postWebhook(t, signedEvent("checkout.session.completed", paid))).json().outcome).toBe("already issued");
    expect(await keyCount()).toBe(before + 2);

    // The keys work, with the plan's quota (Pro: 1,000 a month).
    const call = await determine(live.key);
    expect(call.statusCode).toBe(200);
    expect(call.headers["x-quota-limit"]).toBe("1000");
    expect(call.headers["x-quota-used"]).toBe("1");
    expect((await determine(test.key)).statusCode).toBe(200);

    // The customer portal, opened with the key.
    const portal = await t.request({ method: "POST", url: "/checkout/portal", payload: `api_key=${live.key}`, headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(portal.statusCode).toBe(303);
    expect(portal.headers.location).toBe(`${fake.url}/portal/${paid.customer}`);
    expect(fake.portals.get(paid.customer!)).toMatch(/\/pricing$/);

    // Cancelled: the live key is revoked; the free test key stays.
    fake.set(paid.subscription!, "canceled");
    const deleted = await postWebhook(t, signedEvent("customer.subscription.deleted", { id: paid.subscription, object: "subscription", status: "canceled" }));
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json().outcome).toBe("revoked 1 key(s)");
    const refused = await determine(live.key);
    expect(refused.statusCode).toBe(401);
    expect(refused.json().error.code).toBe("unauthorized");
    expect((await determine(test.key)).statusCode).toBe(200);
    // A replay of the cancellation revokes nothing more.
    expect((await postWebhook(t, signedEvent("customer.subscription.deleted", { id: paid.subscription, object: "subscription", status: "canceled" }))).json().outcome).toBe("revoked 0 key(s)");
  });

  it("buys Scale: the success page first, then the webhook issues nothing; Scale's quota", async () => {
    const { sessionId } = await buy(t, fake, "stormwater_scale");
    const paid = fake.pay(sessionId);
    const before = await keyCount();
    const page = (await successPage(t, sessionId)).json().data;
    expect(page.outcome).toBe("shown");
    const live = page.keys.find((k: { kind: string }) => k.kind === "live");
    expect(live.plan).toBe("scale");
    for (let i = 0; i < 5; i++) expect((await postWebhook(t, signedEvent("checkout.session.completed", paid))).json().outcome).toBe("already issued");
    expect(await keyCount()).toBe(before + 2);
    expect((await determine(live.key)).headers["x-quota-limit"]).toBe("10000");
    // Updated to past_due (not active): the live key is revoked, as documented.
    const updated = await postWebhook(t, signedEvent("customer.subscription.updated", { id: paid.subscription, object: "subscription", status: "past_due" }));
    expect(updated.json().outcome).toBe("revoked 1 key(s)");
    expect((await determine(live.key)).statusCode).toBe(401);
  });

  it("buys NWP Pro: the legacy key of the subscription, Pro until cancelled, then free", async () => {
    const { sessionId } = await buy(t, fake, "nwp_pro");
    const paid = fake.pay(sessionId);
    const before = await keyCount();
    expect((await postWebhook(t, signedEvent("checkout.session.completed", paid))).json().outcome).toBe("issued");
    const page = (await successPage(t, sessionId)).json().data;
    expect(page.outcome).toBe("shown");
    expect(page.keys).toHaveLength(1);
    const key = page.keys[0];
    expect(key).toMatchObject({ surface: "nwp", kind: "legacy", plan: "pro", key_id: null });
    expect(key.key).toMatch(new RegExp(`^nwp_${paid.subscription}_[0-9a-f]{64}$`));
    // Derived, not stored: no document 1 key was added.
    expect(await keyCount()).toBe(before);
    // The same key /recover gives for the subscription.
    const recovered = await t.request({ method: "POST", url: "/recover", payload: JSON.stringify({ subscriptionId: paid.subscription }), headers: { "content-type": "application/json" } });
    expect(recovered.json().data.apiKey).toBe(key.key);

    const pro = await determineNwp(key.key);
    expect(pro.statusCode).toBe(200);
    expect(pro.headers["x-service-tier"]).toBe("pro");
    expect(pro.headers["x-ratelimit-limit"]).toBe("5000");

    fake.set(paid.subscription!, "canceled");
    expect((await postWebhook(t, signedEvent("customer.subscription.deleted", { id: paid.subscription, object: "subscription", status: "canceled" }))).statusCode).toBe(200);
    const free = await determineNwp(key.key);
    expect(free.statusCode).toBe(200);
    expect(free.headers["x-service-tier"]).toBe("free");
    expect(free.headers["x-ratelimit-limit"]).toBe("50");
  });

  it("refuses a webhook with a bad signature (400) and issues nothing", async () => {
    const { sessionId } = await buy(t, fake, "stormwater_pro");
    const paid = fake.pay(sessionId);
    const before = await keyCount();
    const forged = signedEvent("checkout.session.completed", paid, "whsec_not_the_endpoint_secret_0000");
    const res = await postWebhook(t, forged);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe("invalid_request");
    expect(res.body).not.toContain("whsec_");
    // The right event with its signature on another body: refused too.
    const good = signedEvent("checkout.session.completed", paid);
    const tampered = await postWebhook(t, { payload: good.payload.replace("stormwater_pro", "stormwater_scale"), signature: good.signature });
    expect(tampered.statusCode).toBe(400);
    const unsigned = await t.request({ method: "POST", url: "/webhooks/stripe", payload: good.payload, headers: { "content-type": "application/json" } });
    expect(unsigned.statusCode).toBe(400);
    expect(await keyCount()).toBe(before);
  });

  it("is not metered, not under /api/v1, and listed in the OpenAPI document", async () => {
    const doc = (await t.request({ method: "GET", url: "/api/openapi" })).json();
    for (const p of ["/checkout", "/checkout/success", "/checkout/portal", "/webhooks/stripe", "/checkout/local", "/checkout/local/confirm"]) expect(doc.paths[p], p).toBeDefined();
    expect(doc.paths["/webhooks/stripe"].post["x-metered"]).toBe(false);
    const res = await postWebhook(t, signedEvent("invoice.paid", { id: "in_1", object: "invoice" }));
    expect(res.statusCode).toBe(200);
    expect(res.json().outcome).toBe("ignored");
    expect(res.headers["x-ratelimit-limit"]).toBeUndefined();
  });

  it("refuses an unknown plan and an unknown session in the contract's words", async () => {
    const res = await t.request({ method: "POST", url: "/checkout", payload: "plan=platinum", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe("invalid_request");
    const unknown = await successPage(t, "cs_test_nosuchsession");
    expect(unknown.statusCode).toBe(404);
    const malformed = await successPage(t, "nope");
    expect(malformed.statusCode).toBe(400);
  });
});
