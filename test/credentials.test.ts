// A credential header that is present but malformed is a 401 naming the accepted forms, in the
// surface's vocabulary, never a silent fall-back to the anonymous tier.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeyKind } from "@permits/proto/entitlement/v1/entitlement";
import { DEPLOYMENTS, startTarget, type Target } from "./support/target.js";

const SITE = JSON.stringify({ state: "TX", activity: "construction", acres: 5 });
const PROJECT = JSON.stringify({ state: "CA", district: "SPK", activity: "residential-development", aquaticResourceType: "wetland", permanentImpactAcres: 0.3 });

describe.each(DEPLOYMENTS)("malformed credentials, %s deployment", (deployment) => {
  let gw: Target;
  let testKey: string;
  beforeAll(async () => {
    gw = await startTarget(deployment);
    testKey = (await gw.entitlement.issueKey({ kind: KeyKind.TEST, label: "credentials" })).secret;
  }, 60_000);
  afterAll(() => gw?.close());

  const malformed = (key: string): Record<string, string>[] => [
    { authorization: `Token ${key}` },
    { authorization: `Basic ${Buffer.from(`user:${key}`).toString("base64")}` },
    { authorization: "Bearer" },
    { authorization: "Bearer " },
    { "x-api-key": "" },
    { "x-api-key": "   " },
  ];

  it("document 1: 401 unauthorized naming the accepted forms, even with a valid key in the wrong scheme", async () => {
    for (const headers of malformed(testKey)) {
      const res = await gw.request({ method: "POST", url: "/api/v1/determine", payload: SITE, headers: { "content-type": "application/json", ...headers } });
      expect(res.statusCode, JSON.stringify(headers)).toBe(401);
      const body = res.json();
      expect(body.error.code).toBe("unauthorized");
      expect(body.error.message).toMatch(/Authorization: Bearer <key> or X-API-Key: <key>/);
      expect(body.request_id).toBe(res.headers["x-request-id"]);
    }
    // The same key in an accepted form is taken.
    const ok = await gw.request({ method: "POST", url: "/api/v1/determine", payload: SITE, headers: { "content-type": "application/json", authorization: `Bearer ${testKey}` } });
    expect(ok.statusCode).toBe(200);
    // No credential header at all is still the anonymous tier.
    const anonymous = await gw.request({ method: "POST", url: "/api/v1/determine", payload: SITE, headers: { "content-type": "application/json" } });
    expect(anonymous.statusCode).toBe(200);
  });

  it("document 2: 401 invalid_api_key naming the accepted forms", async () => {
    for (const headers of malformed("svc_sandbox_public")) {
      const res = await gw.request({ method: "POST", url: "/api/v1/determine/nwp", payload: PROJECT, headers: { "content-type": "application/json", ...headers } });
      expect(res.statusCode, JSON.stringify(headers)).toBe(401);
      expect(res.json().error.code).toBe("invalid_api_key");
      expect(res.json().error.message).toMatch(/Authorization: Bearer <key> or X-API-Key: <key>/);
    }
  });

  // Every /api/v1 response carries the rate headers of the caller as identified: the IP's keyless
  // tier where no key was accepted. Reading the standing spends nothing.
  const RATE_HEADERS = ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "ratelimit-policy", "ratelimit"];
  const rateHeadersOf = (h: Record<string, string | undefined>) => RATE_HEADERS.map((n) => [n, h[n] === undefined ? "absent" : "present"]);
  const allPresent = RATE_HEADERS.map((n) => [n, "present"]);

  it("refusals before metering carry the rate headers: 401s on both surfaces, 403 upgrade_required, idempotency 400s", async () => {
    const anonymous = await gw.request({ method: "GET", url: "/api/v1/jurisdictions", headers: {} });
    for (const headers of [{ authorization: "Bearer svc_live_not_a_key_at_all_000000" }, { authorization: "Token x" }]) {
      const res = await gw.request({ method: "GET", url: "/api/v1/jurisdictions", headers });
      expect(res.statusCode).toBe(401);
      expect(rateHeadersOf(res.headers), JSON.stringify(headers)).toEqual(allPresent);
      // The anonymous tier's windows: the IP bucket applies.
      expect(res.headers["ratelimit-policy"]).toBe(anonymous.headers["ratelimit-policy"]);
      expect(res.headers["x-quota-limit"]).toBeUndefined();
    }
    const sandbox = await gw.request({ method: "GET", url: "/api/v1/activity", headers: { "x-api-key": "svc_sandbox_public" } });
    for (const headers of [{}, { "x-api-key": "not-a-key" }]) {
      const res = await gw.request({ method: "GET", url: "/api/v1/activity", headers });
      expect(res.statusCode).toBe(401);
      expect(res.headers["x-service-tier"]).toBe("sandbox");
      expect(rateHeadersOf(res.headers)).toEqual(allPresent);
      expect(res.headers["ratelimit-policy"]).toBe(sandbox.headers["ratelimit-policy"]);
    }
    const upgrade = await gw.request({ method: "POST", url: "/api/v1/determine/batch", payload: JSON.stringify({ projects: [JSON.parse(PROJECT)] }), headers: { "content-type": "application/json", "x-api-key": "svc_sandbox_public" } });
    expect(upgrade.statusCode).toBe(403);
    expect(upgrade.json().error.code).toBe("upgrade_required");
    expect(upgrade.headers["x-service-tier"]).toBe("sandbox");
    expect(rateHeadersOf(upgrade.headers)).toEqual(allPresent);
    const json = { "content-type": "application/json", authorization: `Bearer ${testKey}` };
    const tooLong = await gw.request({ method: "POST", url: "/api/v1/determine", payload: SITE, headers: { ...json, "idempotency-key": "k".repeat(256) } });
    expect(tooLong.statusCode).toBe(400);
    expect(rateHeadersOf(tooLong.headers)).toEqual(allPresent);
    expect((await gw.request({ method: "POST", url: "/api/v1/determine", payload: SITE, headers: { ...json, "idempotency-key": `cred-${deployment}` } })).statusCode).toBe(200);
    const mismatch = await gw.request({ method: "POST", url: "/api/v1/determine", payload: JSON.stringify({ state: "TX", activity: "construction", acres: 6 }), headers: { ...json, "idempotency-key": `cred-${deployment}` } });
    expect(mismatch.statusCode).toBe(400);
    expect(rateHeadersOf(mismatch.headers)).toEqual(allPresent);
  });
});
