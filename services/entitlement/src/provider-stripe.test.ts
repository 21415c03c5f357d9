// The stripe adapter with the real `stripe` SDK against a loopback server speaking Stripe's
// subscription-retrieve shape; each case checks the tier or the Unavailable answer.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code, ConnectError } from "@connectrpc/connect";
import { Surface } from "@permits/proto/common/v1/common";
import { Tier } from "@permits/proto/entitlement/v1/entitlement";
import { Authenticator } from "./authenticate.js";
import { closedPortUrl, startFakeStripe, type FakeStripe } from "./fake-stripe.js";
import { deriveLegacyKey } from "./keys.js";
import { Writable } from "node:stream";
import { createLogger } from "@permits/runtime";
import { StripeProvider, stripeEndpoint } from "./provider-stripe.js";
import type { EntitlementStore } from "./store.js";
import { Registry } from "prom-client";
import { providerMetrics, type ProviderObserver } from "./provider-metrics.js";

const API_KEY = "sk_test_loopbackFakeKey0123456789";
const LEGACY_SECRET = "stripe-test-legacy-secret-0123456";
const TIMEOUT_MS = 300;
const IP = "192.0.2.7";

const logLines: string[] = [];
const logger = createLogger("entitlement", {
  level: "trace",
  destination: new Writable({ write: (chunk, _enc, done) => (logLines.push(String(chunk)), done()) }),
});
let fake: FakeStripe;
/** Every call fails, so a test that reached the store would fail loudly. */
const untouchedStore = new Proxy({} as EntitlementStore, { get: () => () => Promise.reject(new Error("the store was touched")) });

function authenticatorFor(url: string, apiKey = API_KEY, observer?: ProviderObserver): Authenticator {
  return new Authenticator({
    observer,
    // Document 1 keys are not used here; the store is never touched.
    store: untouchedStore,
    provider: new StripeProvider({ url, apiKey, timeoutMs: TIMEOUT_MS }),
    sandboxKey: "svc_sandbox_public",
    legacySecret: LEGACY_SECRET,
    logger,
  });
}

async function tierOf(a: Authenticator, subscriptionId: string): Promise<Tier | ConnectError> {
  try {
    return (await a.authenticate(Surface.NWP, deriveLegacyKey(LEGACY_SECRET, subscriptionId), IP)).tier;
  } catch (err) {
    return ConnectError.from(err);
  }
}

function expectUnavailable(result: Tier | ConnectError): void {
  expect(result).toBeInstanceOf(ConnectError);
  const err = result as ConnectError;
  expect(err.code).toBe(Code.Unavailable);
  expect(err.metadata.get("retry-after")).toBe("5");
  expect(err.rawMessage).toMatch(/retry/i);
}

beforeAll(async () => {
  fake = await startFakeStripe(API_KEY);
  fake.set("sub_1Active", "active");
  fake.set("sub_1Trialing", "trialing");
  fake.set("sub_1Canceled", "canceled");
  fake.set("sub_1PastDue", "past_due");
  fake.set("sub_1Slow", { kind: "slow", status: "active", delayMs: TIMEOUT_MS * 4 });
  fake.set("sub_1Err500", { kind: "error", httpStatus: 500 });
  fake.set("sub_1Err503", { kind: "error", httpStatus: 503 });
});
afterAll(async () => {
  await fake.close();
});

describe("stripe adapter (real SDK, loopback server)", () => {
  it("active and trialing: pro", async () => {
    const a = authenticatorFor(fake.url);
    expect(await tierOf(a, "sub_1Active")).toBe(Tier.PRO);
    expect(await tierOf(a, "sub_1Trialing")).toBe(Tier.PRO);
    expect(fake.requests.get("sub_1Active")).toBe(1);
  });

  it("canceled (or any other ended status): free", async () => {
    const a = authenticatorFor(fake.url);
    expect(await tierOf(a, "sub_1Canceled")).toBe(Tier.FREE);
    expect(await tierOf(a, "sub_1PastDue")).toBe(Tier.FREE);
  });

  it("unknown subscription (404 resource_missing): Unauthenticated", async () => {
    const result = await tierOf(authenticatorFor(fake.url), "sub_1Nobody");
    expect((result as ConnectError).code).toBe(Code.Unauthenticated);
    expect(fake.requests.get("sub_1Nobody")).toBe(1);
  });

  it("slow past the timeout: Unavailable, within about the timeout", async () => {
    const started = Date.now();
    expectUnavailable(await tierOf(authenticatorFor(fake.url), "sub_1Slow"));
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
    expect(elapsed).toBeLessThan(TIMEOUT_MS * 3);
  });

  it("down (connection refused): Unavailable", async () => {
    expectUnavailable(await tierOf(authenticatorFor(await closedPortUrl()), "sub_1Active"));
  });

  it("500 and 503: Unavailable, one request each (no SDK retries)", async () => {
    const a = authenticatorFor(fake.url);
    expectUnavailable(await tierOf(a, "sub_1Err500"));
    expectUnavailable(await tierOf(a, "sub_1Err503"));
    expect(fake.requests.get("sub_1Err500")).toBe(1);
  });

  it("a rejected provider API key is an outage, never an unknown subscription", async () => {
    expectUnavailable(await tierOf(authenticatorFor(fake.url, "sk_test_wrongKey"), "sub_1Active"));
  });

  it("single flight: 10 concurrent checks make one provider request", async () => {
    fake.set("sub_1Flight", { kind: "slow", status: "active", delayMs: 100 });
    const a = authenticatorFor(fake.url);
    const tiers = await Promise.all(Array.from({ length: 10 }, () => tierOf(a, "sub_1Flight")));
    expect(tiers).toEqual(Array(10).fill(Tier.PRO));
    expect(fake.requests.get("sub_1Flight")).toBe(1);
  });

  it("metrics: each call's outcome (ok, error, timeout) with its time, and the checks that shared a call", async () => {
    const registry = new Registry();
    const a = authenticatorFor(fake.url, API_KEY, providerMetrics(registry));
    fake.set("sub_1Shared", { kind: "slow", status: "active", delayMs: 100 });
    await Promise.all(Array.from({ length: 4 }, () => tierOf(a, "sub_1Shared")));
    await tierOf(a, "sub_1Err500");
    await tierOf(a, "sub_1Slow");
    const values = (await registry.getSingleMetric("entitlement_provider_call_duration_seconds")!.get()).values;
    const count = (outcome: string) => values.find((v) => v.metricName?.endsWith("_count") && v.labels.outcome === outcome)?.value;
    expect([count("ok"), count("error"), count("timeout")]).toEqual([1, 1, 1]);
    const timeoutSum = values.find((v) => v.metricName?.endsWith("_sum") && v.labels.outcome === "timeout")!.value;
    expect(timeoutSum).toBeGreaterThanOrEqual((TIMEOUT_MS - 20) / 1000);
    const coalesced = (await registry.getSingleMetric("entitlement_provider_coalesced_checks_total")!.get()).values;
    expect(coalesced).toEqual([{ value: 3, labels: { provider: "stripe" } }]);
  });

  it("wrote neither the provider API key nor any legacy key to the logs", () => {
    const all = logLines.join("");
    expect(all).toMatch(/payment provider unavailable/);
    expect(all).not.toContain(API_KEY);
    expect(all).not.toContain(LEGACY_SECRET);
    expect(all).not.toContain("sub_1Active");
  });
});

describe("PAYMENT_PROVIDER_URL parsing", () => {
  it("splits host, port and protocol", () => {
    expect(stripeEndpoint("https://api.stripe.com")).toEqual({ host: "api.stripe.com", port: 443, protocol: "https" });
    expect(stripeEndpoint("http://127.0.0.1:12111")).toEqual({ host: "127.0.0.1", port: 12111, protocol: "http" });
    expect(stripeEndpoint("http://[::1]:8080/")).toEqual({ host: "::1", port: 8080, protocol: "http" });
    expect(() => stripeEndpoint("ftp://x")).toThrow();
    expect(() => stripeEndpoint("http://x/v1")).toThrow();
  });
});
