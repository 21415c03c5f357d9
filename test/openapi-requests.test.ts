// The OpenAPI request schemas require what documents 1 and 2 require: each body below is refused
// by the document's schema and by the gateway alike (400 in the route's vocabulary), and the
// valid ones pass both. A client that validates against the document is never surprised.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiCheck, type OpenApiCheck } from "./support/openapi-check.js";
import { startTarget, type Target } from "./support/target.js";

const site = { state: "NM", activity: "construction", acres: 3 };
const project = { state: "WV", district: "LRH", activity: "residential-development", aquaticResourceType: "wetland", permanentImpactAcres: 0.25 };

const cases: Array<{ url: string; body: unknown; why: string }> = [
  { url: "/api/v1/determine", body: { state: "NM", activity: "construction" }, why: "neither acres nor disturbedAcres" },
  { url: "/api/v1/determine", body: { ...site, acres: -1 }, why: "negative acres" },
  { url: "/api/v1/determine", body: { ...site, colour: "red" }, why: "an unknown field" },
  { url: "/api/v1/determine", body: { ...site, activity: "mining" }, why: "an activity outside the enum" },
  { url: "/api/v1/determine", body: { ...site, partOfLargerPlan: "yes" }, why: "a boolean as text in a JSON body" },
  { url: "/api/v1/determine", body: { activity: "construction", acres: 3 }, why: "no state" },
  { url: "/api/v1/determine/nwp", body: { ...project, permanentImpactAcres: undefined }, why: "no permanentImpactAcres" },
  { url: "/api/v1/determine/nwp", body: { ...project, aquaticResourceType: "lake" }, why: "an aquatic resource type outside the enum" },
  { url: "/recover", body: {}, why: "no subscriptionId" },
];

describe("request schemas as strict as the documents", () => {
  let t: Target;
  let check: OpenApiCheck;
  let proKey: string;
  beforeAll(async () => {
    t = await startTarget("embedded");
    check = openApiCheck((await t.request({ method: "GET", url: "/api/openapi" })).json());
    const { KeyKind, Plan } = await import("@permits/proto/entitlement/v1/entitlement");
    proKey = (await t.entitlement.issueKey({ kind: KeyKind.LIVE, plan: Plan.PRO, label: "requests" })).secret;
  }, 60_000);
  afterAll(async () => t?.close());

  const post = (url: string, body: unknown) => {
    const auth: Record<string, string> = url.includes("/nwp") || url === "/recover" ? { "x-api-key": "svc_sandbox_public" } : { authorization: `Bearer ${proKey}` };
    return t.request({ method: "POST", url, payload: JSON.stringify(body), headers: { "content-type": "application/json", ...auth } });
  };

  it("accepts the valid bodies the gateway answers", async () => {
    expect(check.requestProblems("POST", "/api/v1/determine", site)).toEqual([]);
    expect(check.requestProblems("POST", "/api/v1/determine", { state: "NM", activity: "construction", disturbedAcres: 0.5, partOfLargerPlan: true })).toEqual([]);
    expect(check.requestProblems("POST", "/api/v1/determine/nwp", project)).toEqual([]);
    expect((await post("/api/v1/determine", site)).statusCode).toBe(200);
    expect((await post("/api/v1/determine/nwp", project)).statusCode).toBe(200);
  });

  it.each(cases)("refuses $why on $url, in the document and at the gateway", async ({ url, body, why }) => {
    expect(check.requestProblems("POST", url, body), why).not.toEqual([]);
    const res = await post(url, body);
    expect([400, 422]).toContain(res.statusCode);
  });
});
