// Document 2 through the gateway: envelope, vocabulary, statuses, lookups and batch.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { SubscriptionStatus } from "@permits/proto/entitlement/v1/entitlement";
import { DEPLOYMENTS, startTarget, type Target } from "./support/target.js";

const SANDBOX = "svc_sandbox_public";
describe.each(DEPLOYMENTS)("document 2 surface, %s deployment", (deployment) => {
let gw: Target;
let proKey: string;
beforeAll(async () => {
  gw = await startTarget(deployment);
  await gw.entitlement.setLocalSubscription({ subscriptionId: "sub_nwp_pro_1", status: SubscriptionStatus.ACTIVE });
  proKey = (await gw.entitlement.recoverLegacyKey({ subscriptionId: "sub_nwp_pro_1" })).apiKey;
}, 60_000);
afterAll(async () => gw?.close());

const project = { state: "CA", district: "SPK", activity: "residential-development", aquaticResourceType: "wetland", permanentImpactAcres: 0.3 };
const post = (url: string, body: unknown, key: string | null = SANDBOX) =>
  gw.request({ method: "POST", url, payload: typeof body === "string" ? body : JSON.stringify(body), headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) } });
const get = (url: string, key: string | null = SANDBOX) => gw.request({ method: "GET", url, headers: key ? { "x-api-key": key } : {} });

describe("POST /api/v1/determine/nwp", () => {
  it("answers { data, meta } with the ruleset, the echoed input and the request id", async () => {
    const res = await gw.request({ method: "POST", url: "/api/v1/determine/nwp", payload: JSON.stringify(project), headers: { "content-type": "application/json", "x-api-key": SANDBOX, "x-request-id": "nwp-1" } });
    expect(res.statusCode).toBe(200);
    expect(res.headers["x-service-tier"]).toBe("sandbox");
    expect(res.headers["x-request-id"]).toBe("nwp-1");
    const body = res.json();
    expect(Object.keys(body)).toEqual(["data", "meta"]);
    expect(body.meta.requestId).toBe("nwp-1");
    expect(body.meta.ruleset).toMatchObject({ id: "nwp-2026", effectiveDate: "2026-03-15", expiryDate: "2031-03-15" });
    expect(body.meta.input).toMatchObject({ ...project, temporaryImpactAcres: null, streamBedLinearFeet: null });
    expect(["nwp-likely", "nwp-with-pcn", "individual-permit-likely", "insufficient-data"]).toContain(body.data.verdict);
    expect(body.data.districtLayer).toMatchObject({ code: "SPK", conditionsCompiled: false });
    expect(body.data.stateLayer).toMatchObject({ code: "CA" });
    expect(typeof body.data.stateLayer.certificationCompiled).toBe("boolean");
    expect(body.data.pcn.reviewDays).toBe(45);
    expect(body.data.coverageGaps.length).toBeGreaterThan(0);
    for (const c of body.data.candidates) expect([true, false, null]).toContain(c.eligible);
  });

  it("answers an unknown district 422 listing all 38 codes", async () => {
    const res = await post("/api/v1/determine/nwp", { ...project, district: "XYZ" });
    expect(res.statusCode).toBe(422);
    expect(res.headers["x-service-tier"]).toBe("sandbox");
    const e = res.json().error;
    expect(e.code).toBe("invalid_request");
    expect(e.knownValues.district).toHaveLength(38);
    expect(e.fields[0].field).toBe("district");
    expect(e.requestId).toBe(res.headers["x-request-id"]);
    expect(e.docs).toMatch(/^\/api\/openapi#/);
  });

  it("answers an unknown activity 422 listing all 15 identifiers", async () => {
    const res = await post("/api/v1/determine/nwp", { ...project, activity: "skyscraper" });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.knownValues.activity).toHaveLength(15);
  });

  it("answers an unknown resource type 422 with the four values", async () => {
    const res = await post("/api/v1/determine/nwp", { ...project, aquaticResourceType: "lake" });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.knownValues.aquaticResourceType).toEqual(["wetland", "stream", "open-water", "tidal"]);
  });

  it("answers a missing or malformed field 400 invalid_request naming it", async () => {
    const missing = await post("/api/v1/determine/nwp", { ...project, permanentImpactAcres: undefined });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.fields.map((f: { field: string }) => f.field)).toContain("permanentImpactAcres");
    const malformed = await post("/api/v1/determine/nwp", { ...project, permanentImpactAcres: "half" });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error.fields[0].field).toBe("permanentImpactAcres");
  });

  it("rejects unknown body fields", async () => {
    const res = await post("/api/v1/determine/nwp", { ...project, wetlandColour: "green" });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe("invalid_request");
    expect(res.json().error.fields).toContainEqual({ field: "wetlandColour", message: "wetlandColour is not a known field" });
  });

  it("answers malformed JSON with malformed_json", async () => {
    const res = await post("/api/v1/determine/nwp", "{");
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe("malformed_json");
  });

  it("needs a key: missing_api_key without one, invalid_api_key for a bad one", async () => {
    const none = await post("/api/v1/determine/nwp", project, null);
    expect(none.statusCode).toBe(401);
    expect(none.json().error.code).toBe("missing_api_key");
    const bad = await post("/api/v1/determine/nwp", project, "nwp_sub_x_deadbeef");
    expect(bad.statusCode).toBe(401);
    expect(bad.json().error.code).toBe("invalid_api_key");
  });
});

describe("lookups", () => {
  it("lists 57 permits, 38 districts and 15 activities", async () => {
    expect((await get("/api/v1/nwp")).json().data.permits).toHaveLength(57);
    expect((await get("/api/v1/district")).json().data.districts).toHaveLength(38);
    const acts = (await get("/api/v1/activity")).json().data.activities;
    expect(acts).toHaveLength(15);
    for (const a of acts) expect(a.confidence).toBe("verify");
  });
  it("every district says its regional conditions are not compiled", async () => {
    for (const d of (await get("/api/v1/district")).json().data.districts) {
      expect(d.conditionsCompiled).toBe(false);
      expect(d.regionalConditions).toEqual([]);
    }
  });
  for (const n of [26, 47, 56, 61]) {
    it(`answers NWP ${n} 404 with the valid set`, async () => {
      const res = await get(`/api/v1/nwp/${n}`);
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe("not_found");
      const valid = res.json().error.knownValues.nwp;
      expect(valid).toHaveLength(57);
      expect(valid).not.toContain(String(n));
    });
  }
  it("answers a non-numeric NWP number 400", async () => {
    expect((await get("/api/v1/nwp/twelve")).statusCode).toBe(400);
  });
  it("answers one permit, one district and one 401 record", async () => {
    expect((await get("/api/v1/nwp/12")).json().data.number).toBe(12);
    expect((await get("/api/v1/district/SPK")).json().data.code).toBe("SPK");
    const rec = (await get("/api/v1/state/CA/401")).json().data;
    expect(rec.code).toBe("CA");
    expect(typeof rec.certificationCompiled).toBe("boolean");
    expect((await get("/api/v1/district/ZZZ")).statusCode).toBe(404);
    expect((await get("/api/v1/state/ZZ/401")).statusCode).toBe(404);
  });
});

describe("POST /api/v1/determine/batch", () => {
  it("refuses a non-Pro key with 403 upgrade_required before reading the projects", async () => {
    const res = await post("/api/v1/determine/batch", "not even json");
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe("upgrade_required");
  });
  it("decides valid and invalid projects independently, in input order", async () => {
    const res = await post("/api/v1/determine/batch", { projects: [project, { ...project, district: "NOPE" }, { ...project, permanentImpactAcres: "x" }, { ...project, state: "OR", district: "NWP" }] }, proKey);
    expect(res.statusCode).toBe(200);
    expect(res.headers["x-service-tier"]).toBe("pro");
    const body = res.json();
    expect(body.data.map((i: { index: number; ok: boolean }) => [i.index, i.ok])).toEqual([[0, true], [1, false], [2, false], [3, true]]);
    expect(body.meta).toMatchObject({ count: 4, succeeded: 2, failed: 2 });
    expect(body.meta.ruleset.id).toBe("nwp-2026");
    expect(body.data[1].error.knownValues.district).toHaveLength(38);
    expect(body.data[2].error.fields[0].field).toBe("permanentImpactAcres");
    expect(body.data[0].determination.verdict).toBeTruthy();
    expect(body.data[0].input.district).toBe("SPK");
  });
  it("refuses 101 projects with batch_too_large and accepts 100", async () => {
    const tooMany = await post("/api/v1/determine/batch", { projects: Array.from({ length: 101 }, () => project) }, proKey);
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().error.code).toBe("batch_too_large");
    const hundred = await post("/api/v1/determine/batch", { projects: Array.from({ length: 100 }, () => project) }, proKey);
    expect(hundred.statusCode).toBe(200);
    expect(hundred.json().meta.count).toBe(100);
  });
});

describe("property: random requests", () => {
  it("never give a 500 and always give document 2's envelope", async () => {
    const value = fc.oneof(fc.string({ maxLength: 8 }), fc.double(), fc.integer(), fc.boolean(), fc.constant(null));
    const body = fc.record(
      {
        state: fc.oneof(fc.constantFrom("CA", "TX", "PR", "ZZ", ""), value),
        district: fc.oneof(fc.constantFrom("SPK", "SAJ", "NAB", "XX"), value),
        activity: fc.oneof(fc.constantFrom("residential-development", "utility-line", "road-crossing", "nope"), value),
        aquaticResourceType: fc.oneof(fc.constantFrom("wetland", "stream", "open-water", "tidal", "lake"), value),
        permanentImpactAcres: fc.oneof(fc.double({ min: -1, max: 5, noNaN: true }), value),
        temporaryImpactAcres: fc.oneof(fc.double({ min: 0, max: 5, noNaN: true }), value),
        streamBedLinearFeet: fc.oneof(fc.integer({ min: 0, max: 2000 }), value),
        extra: value,
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const res = await post("/api/v1/determine/nwp", b);
        expect(res.statusCode).toBeLessThan(500);
        const json = res.json();
        if (res.statusCode === 200) expect(Object.keys(json)).toEqual(["data", "meta"]);
        else {
          expect(Object.keys(json)).toEqual(["error"]);
          expect(typeof json.error.code).toBe("string");
          expect(json.error.requestId).toBe(res.headers["x-request-id"]);
        }
      }),
      { numRuns: 200 },
    );
  });
});
});
