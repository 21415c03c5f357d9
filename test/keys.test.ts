// Every key kind on every surface through the gateway, both headers, the lapsed-Pro fallback,
// the provider-outage 503, the CLI round trip, and logs without secrets.
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeyKind, Plan, SubscriptionStatus } from "@permits/proto/entitlement/v1/entitlement";
import { deriveLegacyKey, runCli } from "@permits/entitlement";
import { startFakeStripe, type FakeStripe } from "@permits/entitlement/testing";
import { startEmbedded, type Embedded } from "./support/embedded.js";
import { generousTiersFile } from "./support/processes.js";

const SANDBOX = "svc_sandbox_public";
const SECRET = "test-legacy-secret-0123456789";
const site = { state: "NM", activity: "construction", acres: 3 };
const project = { state: "CA", district: "SPK", activity: "residential-development", aquaticResourceType: "wetland", permanentImpactAcres: 0.3 };

let logs = "";
const logStream = new Writable({ write(chunk, _e, cb) { logs += chunk; cb(); } });
let gw: Embedded;
let live: string, liveId: string, scale: string, test: string, revoked: string, legacyPro: string, legacyLapsed: string;
beforeAll(async () => {
  gw = await startEmbedded({ TIERS_FILE: generousTiersFile(), LEGACY_KEY_SECRET: SECRET }, { logStream });
  const e = gw.clients.entitlement;
  const issued = await e.issueKey({ kind: KeyKind.LIVE, plan: Plan.PRO, label: "pro" });
  [live, liveId] = [issued.secret, issued.key!.id];
  scale = (await e.issueKey({ kind: KeyKind.LIVE, plan: Plan.SCALE, label: "scale" })).secret;
  test = (await e.issueKey({ kind: KeyKind.TEST, label: "test" })).secret;
  const r = await e.issueKey({ kind: KeyKind.LIVE, plan: Plan.PRO, label: "to revoke" });
  revoked = r.secret;
  await e.revokeKey({ id: r.key!.id });
  await e.setLocalSubscription({ subscriptionId: "sub_active_1", status: SubscriptionStatus.ACTIVE });
  await e.setLocalSubscription({ subscriptionId: "sub_lapsed_1", status: SubscriptionStatus.CANCELED });
  legacyPro = deriveLegacyKey(SECRET, "sub_active_1");
  legacyLapsed = deriveLegacyKey(SECRET, "sub_lapsed_1");
});
afterAll(async () => gw?.close());

const determine = (headers: Record<string, string>) =>
  gw.app.inject({ method: "POST", url: "/api/v1/determine", payload: JSON.stringify(site), headers: { "content-type": "application/json", ...headers } });
const nwp = (headers: Record<string, string>) =>
  gw.app.inject({ method: "POST", url: "/api/v1/determine/nwp", payload: JSON.stringify(project), headers: { "content-type": "application/json", ...headers } });
const bearer = (k: string) => ({ authorization: `Bearer ${k}` });

describe("document 1 keys", () => {
  it("no key is anonymous: never 401, attribution present", async () => {
    const res = await determine({});
    expect(res.statusCode).toBe(200);
    expect(res.json().attribution).toBeTruthy();
    expect(res.headers["x-quota-limit"]).toBeUndefined();
  });
  it("the sandbox key and a test key work, never bill, and carry attribution", async () => {
    for (const k of [SANDBOX, test]) {
      const res = await determine(bearer(k));
      expect(res.statusCode).toBe(200);
      expect(res.json().attribution).toBeTruthy();
      expect(res.headers["x-quota-limit"]).toBeUndefined();
    }
  });
  it("a live key is billable: quota headers, no attribution", async () => {
    for (const k of [live, scale]) {
      const res = await determine({ "x-api-key": k });
      expect(res.statusCode).toBe(200);
      expect(res.json().attribution).toBeUndefined();
      expect(res.json().disclaimer).toBeTruthy();
      expect(Number(res.headers["x-quota-limit"])).toBeGreaterThan(0);
      expect(res.headers["x-quota-used"]).toBeDefined();
      expect(res.headers["x-quota-remaining"]).toBeDefined();
    }
  });
  it("accepts X-API-Key in any case and Bearer in any case", async () => {
    expect((await determine({ "X-API-KEY": live })).statusCode).toBe(200);
    expect((await determine({ authorization: `bearer ${live}` })).statusCode).toBe(200);
  });
  it("answers 401 unauthorized for unknown, malformed, revoked and document 2 keys", async () => {
    for (const k of ["svc_live_doesnotexist0000000000000000", "garbage", revoked, legacyPro]) {
      const res = await determine(bearer(k));
      expect(res.statusCode, k.slice(0, 12)).toBe(401);
      expect(res.json().error.code).toBe("unauthorized");
    }
  });
  it("says an NWP Pro key is one, and which keys these endpoints take, whether or not its subscription exists", async () => {
    for (const k of [legacyPro, deriveLegacyKey(SECRET, "sub_never_seen")]) {
      const res = await determine(bearer(k));
      expect(res.statusCode).toBe(401);
      expect(res.json().error.message).toBe(
        "This is an NWP Pro key (nwp_…): it works on the nationwide permit (NWP) endpoints only. The stormwater endpoints take a svc_live_ or svc_test_ key from checkout at /pricing, or the public sandbox key.",
      );
    }
    expect((await determine(bearer("garbage"))).json().error.message).toBe("The API key is not valid, or has been revoked.");
  });
  it("a key revoked while the server runs stops working on the next call", async () => {
    const k = await gw.clients.entitlement.issueKey({ kind: KeyKind.TEST, label: "short-lived" });
    expect((await determine(bearer(k.secret))).statusCode).toBe(200);
    await gw.clients.entitlement.revokeKey({ id: k.key!.id });
    expect((await determine(bearer(k.secret))).statusCode).toBe(401);
  });
});

describe("document 2 keys", () => {
  it("sandbox, active legacy and lapsed legacy keys get their tier", async () => {
    for (const [k, tier] of [[SANDBOX, "sandbox"], [legacyPro, "pro"], [legacyLapsed, "free"]] as const) {
      const res = await nwp(bearer(k));
      expect(res.statusCode, tier).toBe(200);
      expect(res.headers["x-service-tier"]).toBe(tier);
    }
  });
  it("refuses a document 1 key, a forged signature and an unknown subscription with invalid_api_key", async () => {
    const forged = legacyPro.slice(0, -4) + (legacyPro.endsWith("0000") ? "1111" : "0000");
    for (const k of [live, test, forged, deriveLegacyKey(SECRET, "sub_never_seen")]) {
      const res = await nwp(bearer(k));
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe("invalid_api_key");
    }
  });
  it("says a stormwater key is one, and which keys these endpoints take, whether or not it exists", async () => {
    const unknownLive = "svc_live_" + "0".repeat(40);
    for (const [k, kind] of [[live, "live"], [unknownLive, "live"], [revoked, "live"], [test, "test"]] as const) {
      const res = await nwp(bearer(k));
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe("invalid_api_key");
      expect(res.json().error.message).toBe(
        `This is a stormwater ${kind} key (svc_${kind}_…): it works on the stormwater endpoints only. The nationwide permit (NWP) endpoints take the NWP Pro key from checkout at /pricing (nwp_…), or the public sandbox key.`,
      );
    }
    const forged = legacyPro.slice(0, -4) + (legacyPro.endsWith("0000") ? "1111" : "0000");
    expect((await nwp(bearer(forged))).json().error.message).toBe("The API key is not valid, or has been revoked.");
  });
  it("answers missing_api_key without a key", async () => {
    const res = await nwp({});
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe("missing_api_key");
  });
  it("a lapsed Pro key cannot use the Pro-only batch", async () => {
    const res = await gw.app.inject({ method: "POST", url: "/api/v1/determine/batch", payload: JSON.stringify({ projects: [project] }), headers: { "content-type": "application/json", ...bearer(legacyLapsed) } });
    expect(res.statusCode).toBe(403);
    expect(res.headers["x-service-tier"]).toBe("free");
  });
});

describe("key recovery", () => {
  it("reissues the derived key of a known subscription, in document 2's vocabulary", async () => {
    const res = await gw.app.inject({ method: "POST", url: "/recover", payload: JSON.stringify({ subscriptionId: "sub_active_1" }), headers: { "content-type": "application/json" } });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.apiKey).toBe(legacyPro);
    // meta as on every document 2 success: the same ruleset as GET /api/v1/nwp names.
    const nwpList = await gw.app.inject({ method: "GET", url: "/api/v1/nwp", headers: { "x-api-key": "svc_sandbox_public" } });
    expect(res.json().meta.ruleset).toEqual(nwpList.json().meta.ruleset);
    expect(res.json().meta.ruleset.id).toBeTruthy();
    expect(res.json().meta.requestId).toBe(res.headers["x-request-id"]);
    const unknown = await gw.app.inject({ method: "POST", url: "/recover", payload: JSON.stringify({ subscriptionId: "sub_nobody" }), headers: { "content-type": "application/json" } });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe("not_found");
    expect(JSON.stringify(unknown.json())).not.toContain("sub_active_1");
    const bad = await gw.app.inject({ method: "POST", url: "/recover", payload: "{", headers: { "content-type": "application/json" } });
    expect(bad.json().error.code).toBe("malformed_json");
  });
});

describe("the CLI against a running gateway", () => {
  it("issues a key the gateway accepts, then revokes it", async () => {
    const out: string[] = [];
    const io = { out: (t: string) => out.push(t), err: (t: string) => out.push(t), env: { STATE_DIR: gwStateDir() } };
    expect(await runCli(["create", "--kind", "live", "--plan", "pro", "--label", "cli"], io)).toBe(0);
    const key = /svc_live_[A-Za-z0-9]+/.exec(out.join("\n"))![0];
    const id = /key_[A-Za-z0-9]+/.exec(out.join("\n"))![0];
    expect((await determine(bearer(key))).statusCode).toBe(200);
    expect(await runCli(["revoke", id], io)).toBe(0);
    expect((await determine(bearer(key))).statusCode).toBe(401);
    expect(await runCli(["create", "--kind", "platinum"], io)).toBe(2);
  });
});

describe("logs", () => {
  it("never contain a key or secret", () => {
    expect(logs.length).toBeGreaterThan(0);
    for (const secret of [live, scale, test, revoked, legacyPro, legacyLapsed, SANDBOX, SECRET]) expect(logs).not.toContain(secret);
  });
});

function gwStateDir(): string {
  return gw.env.STATE_DIR!;
}

describe("payment provider outage", () => {
  let stripe: FakeStripe;
  let outage: Embedded;
  beforeAll(async () => {
    stripe = await startFakeStripe("sk_test_fake");
    stripe.set("sub_stripe_active", "active");
    stripe.set("sub_stripe_canceled", "canceled");
    outage = await startEmbedded({ TIERS_FILE: generousTiersFile(), LEGACY_KEY_SECRET: SECRET, PAYMENT_PROVIDER: "stripe", PAYMENT_PROVIDER_URL: stripe.url, PAYMENT_PROVIDER_API_KEY: "sk_test_fake", PAYMENT_PROVIDER_TIMEOUT_MS: "300" });
  });
  afterAll(async () => {
    await outage?.close();
    await stripe?.close();
  });
  const call = (k: string) => outage.app.inject({ method: "GET", url: "/api/v1/activity", headers: bearer(k) });

  it("reads active as pro and canceled as free through the real SDK", async () => {
    expect((await call(deriveLegacyKey(SECRET, "sub_stripe_active"))).headers["x-service-tier"]).toBe("pro");
    expect((await call(deriveLegacyKey(SECRET, "sub_stripe_canceled"))).headers["x-service-tier"]).toBe("free");
  });
  it("turns a provider 500 or a timeout into a retryable 503, never a cancellation", async () => {
    stripe.failAll(true);
    const res = await call(deriveLegacyKey(SECRET, "sub_stripe_active"));
    stripe.failAll(false);
    expect(res.statusCode).toBe(503);
    expect(res.json().error.code).toBe("entitlement_check_unavailable");
    expect(Number(res.headers["retry-after"])).toBeGreaterThan(0);
    expect(res.json().error.message).toMatch(/retry/i);
    expect(res.json().error.message).toMatch(/temporary and does not mean the subscription ended/);
    stripe.set("sub_slow", { kind: "slow", status: "active", delayMs: 1500 });
    const slow = await call(deriveLegacyKey(SECRET, "sub_slow"));
    expect(slow.statusCode).toBe(503);
    expect(slow.json().error.code).toBe("entitlement_check_unavailable");
  });
});
