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
});
