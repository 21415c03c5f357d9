import { TODAY } from "./testing.js";
import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { badRequestOf, resourceNotFoundOf, ViolationReason } from "@permits/rules";
import { Confidence } from "@permits/proto/common/v1/common";
import {
  DetermineBatchRequestSchema, DetermineRequestSchema, GetDistrictRequestSchema, GetPermitRequestSchema,
  GetStateCertificationRequestSchema, ListActivitiesRequestSchema, ListDistrictsRequestSchema, ListPermitsRequestSchema, Verdict,
} from "@permits/proto/nwp/v1/nwp";
import { createNwpService } from "./service.js";
import { isGovUrl, project, readLimitsDataset, urlsIn } from "./testing.js";

const ds = readLimitsDataset(12, 29); // eligible paths need limits that may relax
const svc = createNwpService(ds, () => TODAY);
const ctx = {} as never; // the handlers do not use the context

// Handlers may throw synchronously or reject: both count.
async function rejection(call: () => unknown): Promise<ConnectError> {
  try {
    await call();
  } catch (e) {
    if (e instanceof ConnectError) return e;
    throw e;
  }
  throw new Error("expected a ConnectError");
}

describe("determine", () => {
  it("returns the determination, normalised input and ruleset", async () => {
    const res = await svc.determine(create(DetermineRequestSchema, { project: { ...project({ state: "tx" }) } }), ctx);
    expect(res.determination?.verdict).toBe(Verdict.NWP_WITH_PCN);
    expect(res.determination?.candidates[0]).toMatchObject({ number: 29, eligible: true });
    expect(res.determination?.candidates[0].reasons[0].confidence).toBe(Confidence.VERIFIED);
    // NWP 29's PCN term and the PCN review period are unverified: so is the answer as a whole.
    expect(res.determination?.confidence).toBe(Confidence.UNVERIFIED);
    expect(res.input?.state).toBe("TX");
    expect(res.ruleset).toMatchObject({ id: "nwp-2026", federalRegisterCitation: "91 FR 768", effectiveDate: "2026-03-15", expiryDate: "2031-03-15" });
  });

  it("keeps eligible absent (null) when no limit is held", async () => {
    const res = await svc.determine(create(DetermineRequestSchema, { project: project({ activity: "mining" }) }), ctx);
    expect(res.determination?.verdict).toBe(Verdict.INSUFFICIENT_DATA);
    for (const c of res.determination!.candidates) expect(c.eligible).toBeUndefined();
  });

  it("unknown district and activity give InvalidArgument with all 38 / 15 known values", async () => {
    const err = await rejection(() => svc.determine(create(DetermineRequestSchema, { project: project({ district: "XYZ", activity: "paving" }) }), ctx));
    expect(err.code).toBe(Code.InvalidArgument);
    const v = badRequestOf(err)!.violations;
    expect(v.map((x) => [x.field, x.reason])).toEqual([["district", ViolationReason.UNKNOWN_VALUE], ["activity", ViolationReason.UNKNOWN_VALUE]]);
    expect(v[0].knownValues).toHaveLength(38);
    expect(v[1].knownValues).toHaveLength(15);
  });

  it("a request with no project reports each required field as MISSING", async () => {
    const err = await rejection(() => svc.determine(create(DetermineRequestSchema, {}), ctx));
    expect(badRequestOf(err)!.violations.every((v) => v.reason === ViolationReason.MISSING)).toBe(true);
    expect(badRequestOf(err)!.violations).toHaveLength(5);
  });
});

describe("the verdicts it reports (metrics)", () => {
  it("tells each verdict once: a single determination and each valid batch item, none for an invalid one", async () => {
    const told: string[] = [];
    const counted = createNwpService(ds, () => TODAY, (v) => told.push(v));
    await counted.determine(create(DetermineRequestSchema, { project: project() }), ctx);
    const projects = [project(), project({ district: "XYZ" }), project({ permanentImpactAcres: 4 })].map((p, index) => ({ index, project: p }));
    await counted.determineBatch(create(DetermineBatchRequestSchema, { projects }), ctx);
    expect(told).toEqual(["nwp_with_pcn", "nwp_with_pcn", "individual_permit_likely"]);
  });
});

describe("determineBatch", () => {
  it("decides each project independently and keeps input order and indices", async () => {
    const projects = [
      project(),
      project({ district: "XYZ" }),
      project({ activity: "oil-gas-pipeline", permanentImpactAcres: 0.2 }),
      project({ permanentImpactAcres: -1 }),
      project({ permanentImpactAcres: 4 }),
    ].map((p, index) => ({ index, project: p }));
    const res = await svc.determineBatch(create(DetermineBatchRequestSchema, { projects }), ctx);
    expect(res.items.map((i) => [i.index, i.ok])).toEqual([[0, true], [1, false], [2, true], [3, false], [4, true]]);
    expect(res.items.map((i) => i.determination?.verdict)).toEqual([Verdict.NWP_WITH_PCN, undefined, Verdict.NWP_WITH_PCN, undefined, Verdict.INDIVIDUAL_PERMIT_LIKELY]);
    expect(res.items[1].error?.violations[0]).toMatchObject({ field: "district", reason: ViolationReason.UNKNOWN_VALUE });
    expect(res.items[1].error?.violations[0].knownValues).toHaveLength(38);
    expect(res.items[3].error?.violations[0]).toMatchObject({ field: "permanentImpactAcres", reason: ViolationReason.MALFORMED });
    expect(res.items[1].input?.district).toBe("XYZ");
    expect(res.ruleset?.id).toBe("nwp-2026");
  });

  it("accepts 100 projects and rejects 101 with a violation on projects", async () => {
    const mk = (n: number) => create(DetermineBatchRequestSchema, { projects: Array.from({ length: n }, (_, index) => ({ index, project: project() })) });
    expect((await svc.determineBatch(mk(100), ctx)).items).toHaveLength(100);
    const err = await rejection(() => svc.determineBatch(mk(101), ctx));
    expect(err.code).toBe(Code.InvalidArgument);
    expect(badRequestOf(err)!.violations[0]).toMatchObject({ field: "projects", reason: ViolationReason.MALFORMED });
  });
});

describe("lookups", () => {
  it("lists 57 permits, 38 districts and 15 activities with the ruleset", async () => {
    const permits = await svc.listPermits(create(ListPermitsRequestSchema), ctx);
    expect(permits.permits).toHaveLength(57);
    expect(permits.ruleset?.id).toBe("nwp-2026");
    expect((await svc.listDistricts(create(ListDistrictsRequestSchema), ctx)).districts).toHaveLength(38);
    const acts = (await svc.listActivities(create(ListActivitiesRequestSchema), ctx)).activities;
    expect(acts).toHaveLength(15);
    expect(acts.every((a) => a.confidence === "verify")).toBe(true);
  });

  it("getPermit returns a titled, sourced permit", async () => {
    const res = await svc.getPermit(create(GetPermitRequestSchema, { number: 14 }), ctx);
    expect(res.permit).toMatchObject({ number: 14, title: "Linear Transportation Projects" });
    expect(res.permit?.acreageLimit).toMatchObject({ value: 0.5, unit: "acres", confidence: Confidence.UNVERIFIED });
    expect(res.permit?.notes.some((n) => n.includes("1/3 acre"))).toBe(true);
  });

  it.each([26, 47, 56, 0, 61, -3])("getPermit(%d) is NotFound with the 57 valid numbers", async (number) => {
    const err = await rejection(() => svc.getPermit(create(GetPermitRequestSchema, { number }), ctx));
    expect(err.code).toBe(Code.NotFound);
    const d = resourceNotFoundOf(err)!;
    expect(d).toMatchObject({ resource: "nwp", requested: String(number) });
    expect(d.validValues).toHaveLength(57);
    expect(d.validValues).not.toContain("26");
  });

  it("getDistrict finds a code case-insensitively; an unknown one lists all 38", async () => {
    const res = await svc.getDistrict(create(GetDistrictRequestSchema, { code: "nae" }), ctx);
    expect(res.district).toMatchObject({ code: "NAE", conditionsCompiled: false, regionalConditions: [] });
    const err = await rejection(() => svc.getDistrict(create(GetDistrictRequestSchema, { code: "SAA" }), ctx));
    expect(err.code).toBe(Code.NotFound);
    expect(resourceNotFoundOf(err)!.validValues).toHaveLength(38);
  });

  it("getStateCertification returns the record; an unknown code lists the valid codes", async () => {
    const res = await svc.getStateCertification(create(GetStateCertificationRequestSchema, { code: "CA" }), ctx);
    expect(res.certification).toMatchObject({ code: "CA", certificationCompiled: false, certifyingAuthority: "California State Water Resources Control Board" });
    const err = await rejection(() => svc.getStateCertification(create(GetStateCertificationRequestSchema, { code: "QQ" }), ctx));
    expect(err.code).toBe(Code.NotFound);
    expect(resourceNotFoundOf(err)!.validValues).toHaveLength(56);
  });

  it("every URL in every lookup response is https on a government domain", async () => {
    const all = [
      await svc.listPermits(create(ListPermitsRequestSchema), ctx),
      await svc.listDistricts(create(ListDistrictsRequestSchema), ctx),
      ...(await Promise.all(ds.stateCodes.map((code) => svc.getStateCertification(create(GetStateCertificationRequestSchema, { code }), ctx)))),
    ];
    const bad = urlsIn(all).filter((u) => !isGovUrl(u));
    expect(bad).toEqual([]);
  });
});
