// Issue 27's reproductions end to end, through the embedded gateway (inject): the public JSON a
// client reads, REST and MCP.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SubscriptionStatus } from "@permits/proto/entitlement/v1/entitlement";
import { startTarget, type Target } from "./support/target.js";

const SANDBOX = "svc_sandbox_public";
let gw: Target;
let proKey: string;
beforeAll(async () => {
  gw = await startTarget("embedded");
  await gw.entitlement.setLocalSubscription({ subscriptionId: "sub_issue_27", status: SubscriptionStatus.ACTIVE });
  proKey = (await gw.entitlement.recoverLegacyKey({ subscriptionId: "sub_issue_27" })).apiKey;
}, 60_000);
afterAll(async () => gw?.close());

const post = async (url: string, body: unknown, key?: string) => {
  const res = await gw.request({ method: "POST", url, payload: JSON.stringify(body), headers: { "content-type": "application/json", ...(key ? { "x-api-key": key } : {}) } });
  expect(res.statusCode).toBe(200);
  return res.json();
};

describe("document 1: overall confidence and document 1's values", () => {
  it("NM, 3 acres: confidence unverified over 12 unverified requirements (it was verified)", async () => {
    const { data } = await post("/api/v1/determine", { state: "NM", activity: "construction", acres: 3 });
    expect(data.confidence).toBe("unverified");
    expect(data.requirements.filter((r: { citation: { confidence: string } }) => r.citation.confidence === "unverified")).toHaveLength(12);
  });

  it("NM, 0.6 acre: not_required, unverified; GET requirements agrees", async () => {
    const { data } = await post("/api/v1/determine", { state: "NM", activity: "construction", acres: 0.6 });
    expect([data.coverage, data.confidence]).toEqual(["not_required", "unverified"]);
    const res = await gw.request({ method: "GET", url: "/api/v1/requirements?state=NM&activity=construction&acres=0.6" });
    expect(res.json().data.confidence).toBe("unverified");
  });

  it("MA, 20 acres, 5 open at once, neither impaired nor Tier 2: stabilization.complete is 14 (it was null)", async () => {
    const { data } = await post("/api/v1/determine", { state: "MA", activity: "construction", acres: 20, maxDisturbedAcresAtOneTime: 5, dischargesToImpairedWater: false, dischargesToTier2Water: false });
    const stab = data.requirements.find((r: { id: string }) => r.id === "stabilization.complete");
    expect(stab).toMatchObject({ value: 14, citation: { confidence: "unverified" } });
  });
});

describe("document 2: eligibility, headline and confidence", () => {
  const readme = { state: "CA", district: "SPK", activity: "residential-development", aquaticResourceType: "wetland", permanentImpactAcres: 0.3 };

  it("the README's example: insufficient data, California's 401 denial for NWP 29 in the headline, unverified", async () => {
    const { data } = await post("/api/v1/determine/nwp", readme, SANDBOX);
    expect(data.verdict).toBe("insufficient-data");
    expect(data.confidence).toBe("unverified");
    expect(data.pcn).toMatchObject({ required: true, because: "a pre-construction notification is treated as required because no candidate nationwide permit was confirmed for this project, so one cannot be ruled out; confirm with the Corps district" });
    expect(data.headline).toContain("California's final 2026 Section 401 decision denies water quality certification for NWP 29, so an individual Section 401 certification is needed.");
    // Each reason says when the source of its term was last read (issue 28).
    expect(data.candidates[0].reasons[0]).toMatchObject({ code: "limit-not-confirmed", basis: "prior-edition", checkedOn: "2026-11-21" });
  });

  it("TX with SAJ: the district mismatch is in the headline", async () => {
    const { data } = await post("/api/v1/determine/nwp", { ...readme, state: "TX", district: "SAJ" }, SANDBOX);
    expect(data.headline).toContain("The Jacksonville District (SAJ) is not recorded as serving Texas: confirm which Corps district handles the site.");
  });

  it("CA/SPK utility line, wetland, 0.45 acre and 5000 linear feet of stream bed: nothing admitted on a secondary limit or an unheld term", async () => {
    const { data } = await post("/api/v1/determine/nwp", { ...readme, activity: "utility-line", permanentImpactAcres: 0.45, streamBedLinearFeet: 5000 }, SANDBOX);
    expect(data.candidates.map((c: { number: number; eligible: boolean | null }) => [c.number, c.eligible])).toEqual([[57, null], [58, null]]);
  });

  it("batch items carry the overall confidence", async () => {
    const { data } = await post("/api/v1/determine/batch", { projects: [readme, { ...readme, permanentImpactAcres: 2 }] }, proKey);
    expect(data.map((i: { determination: { verdict: string; confidence: string } }) => [i.determination.verdict, i.determination.confidence])).toEqual([
      ["insufficient-data", "unverified"],
      ["individual-permit-likely", "unverified"],
    ]);
  });
});
