// What the datasets know, end to end on both deployments: the coverage read-out, the basis of
// every served fact, the rule of caution at the HTTP surface (PCN null, never false, when not
// held) and the date notices.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEPLOYMENTS, startTarget, type Target } from "./support/target.js";

const SANDBOX = { "x-api-key": "svc_sandbox_public", "content-type": "application/json" };
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const BASES = ["official-text", "agency-form", "prior-edition", "agency-page", "secondary", "unsourced"];

describe.each(DEPLOYMENTS)("permit knowledge, %s deployment", (deployment) => {
  let gw: Target;
  beforeAll(async () => {
    gw = await startTarget(deployment);
  }, 60_000);
  afterAll(async () => gw?.close());

  const nwp = (body: Record<string, unknown>) =>
    gw.request({ method: "POST", url: "/api/v1/determine/nwp", headers: SANDBOX, payload: JSON.stringify({ state: "CA", district: "SPK", aquaticResourceType: "wetland", ...body }) });

  it("GET /api/v1/coverage: both datasets, per jurisdiction and per NWP, unmetered, in document 1's envelope", async () => {
    const res = await gw.request({ method: "GET", url: "/api/v1/coverage" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["x-ratelimit-limit"]).toBeUndefined();
    const body = res.json();
    expect(Object.keys(body)).toEqual(expect.arrayContaining(["data", "request_id", "disclaimer"]));
    const { stormwater, nwp: n } = body.data;
    expect(stormwater.datasetVersion).toMatch(/^2026-11-28\.[0-9a-f]{10}$/);
    expect(stormwater.jurisdictions).toHaveLength(56);
    expect(stormwater.jurisdictions.find((j: { code: string }) => j.code === "NC")).toMatchObject({ requirementCount: 5, credentialGate: "unknown" });
    expect(stormwater.jurisdictions.find((j: { code: string }) => j.code === "NM")).toMatchObject({ requirementCount: 14, expiryDate: "2027-02-16", lastCheckedOn: expect.stringMatching(DATE) });
    // A jurisdiction's date is the latest of its facts' (the research pass read them all on 2026-11-21 or later).
    for (const j of stormwater.jurisdictions) expect(j.lastCheckedOn >= "2026-11-21", j.code).toBe(true);
    for (const f of [...stormwater.facts, ...n.facts]) {
      expect(BASES).toContain(f.basis);
      if (f.confidence === "verified") expect(["official-text", "agency-form"]).toContain(f.basis);
    }
    expect(n.datasetVersion).toMatch(/^nwp-2026\.[0-9a-f]{10}$/);
    expect(n.ruleset).toMatchObject({ id: "nwp-2026", expiryDate: "2031-03-15" });
    expect(n.permits).toHaveLength(57);
    expect(n.permits.find((p: { number: number }) => p.number === 29)).toEqual({
      number: 29, title: "Residential Developments",
      acreageLimit: { held: true, basis: "prior-edition", confidence: "unverified" },
      notification: { held: true, basis: "unsourced", confidence: "unverified" },
      pcnAlways: true,
      lastCheckedOn: "2026-11-21",
    });
    expect(n.permits.find((p: { number: number }) => p.number === 60).notification.held).toBe(false);
  });

  it("the coverage route is in the discovery index and the OpenAPI document", async () => {
    const index = (await gw.request({ method: "GET", url: "/api/v1" })).json();
    expect(index.data.endpoints.some((e: { path: string }) => e.path === "/api/v1/coverage")).toBe(true);
    const doc = (await gw.request({ method: "GET", url: "/api/openapi" })).json();
    expect(doc.paths["/api/v1/coverage"].get.responses["200"]).toBeDefined();
    // In the proto's order: agency-page was added last (an additive enum value).
    expect(doc.components.schemas.CommonCitation.properties.basis.enum).toEqual(["official-text", "agency-form", "prior-edition", "secondary", "unsourced", "agency-page"]);
    expect(doc.components.schemas.NwpPcn.properties.required.type).toBe("boolean");
    expect(doc.components.schemas.Requirement.properties.unit.type).toEqual(["string", "null"]);
    expect(doc.components.schemas.NwpPcn.required).toEqual(expect.arrayContaining(["required", "because"]));
  });

  it("NWP 29 (2017 limit, PCN for every activity unsourced): its limit admits nothing, and the unread PCN term is said once, as a PCN treated as required", async () => {
    const d = (await nwp({ activity: "residential-development", permanentImpactAcres: 0.3 })).json().data;
    expect(d.verdict).toBe("insufficient-data");
    expect(d.pcn.required).toBe(true);
    expect(d.candidates[0]).toMatchObject({ eligible: null, reasons: [{ code: "limit-not-confirmed", basis: "prior-edition" }] });
    expect(d.coverageGaps.filter((g: string) => g.includes("NWP 29") && g.includes("notification"))).toEqual([
      "If NWP 29 applies, a pre-construction notification is treated as required for NWP 29 because its notification terms were not confirmed in any source we could read; confirm with the Corps district.",
    ]);
  });

  it("a nationwide permit's limits, PCN conditions and terms carry the date their source was last read", async () => {
    const p = (await gw.request({ method: "GET", url: "/api/v1/nwp/29", headers: SANDBOX })).json().data;
    expect(p.acreageLimit).toMatchObject({ basis: "prior-edition", checkedOn: "2026-11-21" });
    expect(p.pcnConditions[0].checkedOn).toBe("2026-11-21");
    expect(p.notification.checkedOn).toBe("2026-11-21");
  });

  it("a limit that may not relax: eligible is null in the JSON, never true, and the verdict is never nwp-likely", async () => {
    const d = (await nwp({ activity: "oil-gas-pipeline", permanentImpactAcres: 0.05 })).json().data;
    expect(d.candidates[0]).toMatchObject({ number: 12, eligible: null, reasons: [{ code: "limit-not-confirmed", basis: "secondary" }] });
    expect(d.pcn.required).toBe(true); // not ruled out, never null
    expect(d.verdict).toBe("insufficient-data");
  });

  it("a stormwater project starting after the 2022 CGP expires: coverage unchanged, a notice names the expiry; citations carry their basis", async () => {
    const res = await gw.request({ method: "POST", url: "/api/v1/determine", headers: { "content-type": "application/json" }, payload: JSON.stringify({ state: "NM", activity: "construction", acres: 3, startDate: "2027-03-01" }) });
    const d = res.json().data;
    expect(d.coverage).toBe("required");
    expect(d.notices.some((n: string) => n.includes("falls after EPA 2022 Construction General Permit (CGP) expires on 16 February 2027"))).toBe(true);
    const option1 = d.requirements.find((r: { id: string }) => r.id === "inspection.frequency.option1");
    expect(option1.citation).toMatchObject({ basis: "agency-form", confidence: "verified", checkedOn: expect.stringMatching(DATE) });
  });
});
