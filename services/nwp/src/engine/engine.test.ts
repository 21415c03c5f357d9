import { TODAY } from "../testing.js";
import { describe, expect, it } from "vitest";
import { Code, ConnectError } from "@connectrpc/connect";
import { badRequestOf, ViolationReason } from "@permits/rules";
import { decide, determine, validateProject, type NormalizedInput } from "./index.js";
import { fixtureDataset, project, realDataset } from "../testing.js";

const ds = realDataset();
const run = (over: Record<string, unknown>) => determine(ds, project(over), TODAY).determination;

describe("verdict table (real 2026 dataset)", () => {
  it.each([
    // activity, resource, acres, verdict, eligible per candidate
    // Every held limit rests on a basis that may not relax (secondary, prior edition, unsourced):
    // it can exclude a project above it, never admit one below it (the rule of caution).
    ["residential-development", "wetland", 0.3, "insufficient-data", [null]],
    ["residential-development", "wetland", 0.5, "insufficient-data", [null]], // at the limit is within, and within admits nothing here
    ["residential-development", "wetland", 0.51, "individual-permit-likely", [false]],
    ["residential-development", "tidal", 0.1, "insufficient-data", [null]], // held limit is non-tidal only
    ["road-crossing", "tidal", 0.3, "insufficient-data", [null]], // 0.3 <= 1/3 acre tidal, a 2017 limit
    ["road-crossing", "tidal", 0.34, "individual-permit-likely", [false]],
    ["road-crossing", "stream", 0.45, "insufficient-data", [null]],
    ["utility-line", "wetland", 0.3, "insufficient-data", [null, null]], // a third party's 1/2 acre
    ["utility-line", "open-water", 0.75, "individual-permit-likely", [false, false]],
    ["oil-gas-pipeline", "wetland", 0.2, "insufficient-data", [null]],
    ["oil-gas-pipeline", "wetland", 0.6, "individual-permit-likely", [false]],
    ["mining", "wetland", 0.2, "insufficient-data", [null, null, null, null]],
    ["aquatic-restoration", "stream", 0, "insufficient-data", [null, null, null]],
    ["commercial-development", "wetland", 0.25, "insufficient-data", [null]],
  ] as const)("%s / %s / %d acres -> %s", (activity, aquaticResourceType, acres, verdict, eligible) => {
    const d = run({ activity, aquaticResourceType, permanentImpactAcres: acres });
    expect(d.verdict).toBe(verdict);
    expect(d.candidates.map((c) => c.eligible)).toEqual(eligible);
  });

  it("within a limit that may not relax: eligible null, limit-not-confirmed with the numbers compared, source and confidence", () => {
    const [c] = run({ permanentImpactAcres: 0.3 }).candidates;
    expect(c).toMatchObject({ number: 29, title: "Residential Developments", eligible: null });
    expect(c.reasons[0]).toMatchObject({ code: "limit-not-confirmed", confidence: "unverified", basis: "prior-edition", checkedOn: "2026-11-21" });
    expect(c.reasons[0].derivation).toMatch(/^0\.3 <= 0\.5 acres \(1\/2 acre, prior-edition\)/);
    expect(c.reasons[0].message).toBe("0.3 acres of permanent loss is within the 1/2 acre limit of NWP 29 read in an earlier edition (2017 NWPs (Fort Worth District NWP 29 PCN form)), which is not the 2026 permit text, so eligibility is not assessed; confirm with the Corps district.");
  });

  it("eligible false carries acreage-exceeds-limit", () => {
    const [c] = run({ permanentImpactAcres: 2 }).candidates;
    expect(c.reasons[0]).toMatchObject({ code: "acreage-exceeds-limit" });
    expect(c.reasons[0].derivation).toMatch(/^2 > 0\.5 acres/);
  });

  it("eligible null carries limit-not-held or limit-unsourced, and a coverage gap naming the permit", () => {
    const d = run({ activity: "mining", permanentImpactAcres: 0.2 });
    expect(d.candidates[0].reasons[0].code).toBe("limit-unsourced"); // NWP 21's believed 1/2 acre: may exclude, never admit
    expect(d.candidates.find((c) => c.number === 49)!.reasons[0]).toMatchObject({ code: "limit-not-held", checkedOn: null }); // no term held: nothing was read
    expect(d.coverageGaps.some((g) => g.startsWith("No acreage limit for NWP 49 (Coal Remining Activities) is held"))).toBe(true);
    expect(d.pcn.required).toBe(true);
    expect(d.coverageGaps).toContain("A pre-construction notification is treated as required because no candidate nationwide permit was confirmed for this project, so one cannot be ruled out; confirm with the Corps district.");
    // NWP 21 needs written authorization if it applies: said as a gap, not as a PCN trigger.
    expect(d.coverageGaps.some((g) => g.startsWith("If NWP 21 (Surface Coal Mining Activities) applies"))).toBe(true);
  });

  it("a limit that does not cover the resource type gives resource-type-limit-not-held", () => {
    const d = run({ aquaticResourceType: "tidal", permanentImpactAcres: 0.1 });
    expect(d.candidates[0].reasons[0].code).toBe("resource-type-limit-not-held");
  });

  it("no PCN trigger for a candidate that is not eligible", () => {
    const d = run({ activity: "oil-gas-pipeline", permanentImpactAcres: 0.6 });
    // No NWP path is established, so a notification cannot be ruled out: treated as required, never "no PCN".
    expect(d.pcn).toMatchObject({ required: true, triggers: [] });
  });

  it("headline on a plain answer is the verdict, then why a notification is treated as required; it says unverified when the verdict rests on unverified limits", () => {
    for (const d of [run({ permanentImpactAcres: 3 }), run({ activity: "oil-gas-pipeline", permanentImpactAcres: 0.6 })]) {
      expect(d.headline).toMatch(/unverified/);
      expect(d.headline.trim().split(/\.\s+(?=[A-Z])/)).toHaveLength(2);
      expect(d.headline.endsWith(" A pre-construction notification is treated as required because no candidate nationwide permit was confirmed for this project, so one cannot be ruled out; confirm with the Corps district.")).toBe(true);
    }
    expect(run({}).headline).toBe("Insufficient data: no candidate permit (NWP 29) could be assessed for 0.3 acres of permanent loss in wetland waters: the acreage limit held for NWP 29 is not confirmed in the 2026 permit text; confirm with the Corps district. A pre-construction notification is treated as required because no candidate nationwide permit was confirmed for this project, so one cannot be ruled out; confirm with the Corps district.");
  });

  it("coverage gaps always name the jurisdiction limit, uncompiled regional conditions and 401 decisions", () => {
    const d = run({});
    expect(d.coverageGaps[0]).toMatch(/does not decide whether the site contains waters of the United States/);
    expect(d.coverageGaps.some((g) => /Regional conditions of the Fort Worth District \(SWF\) are not included here/.test(g))).toBe(true);
    expect(d.coverageGaps.some((g) => /Section 401 .* Texas are not included here/.test(g))).toBe(true);
    expect(d.districtLayer).toEqual({ code: "SWF", conditionsCompiled: false, name: "Fort Worth", url: "https://www.swf.usace.army.mil/Missions/Regulatory/" });
    expect(d.stateLayer).toMatchObject({ code: "TX", certificationCompiled: false });
  });

  it("says when the district is not on record as serving the state", () => {
    expect(run({ state: "FL", district: "SWF" }).coverageGaps.some((g) => /Fort Worth District \(SWF\) is not on record .* serving Florida/.test(g))).toBe(true);
    expect(run({ state: "TX", district: "SWF" }).coverageGaps.some((g) => /not on record .* serving/.test(g))).toBe(false);
  });

  it("a Puerto Rico project names the Caribbean District as the office that handles it", () => {
    const d = run({ state: "PR", district: "SAJ" });
    expect(d.coverageGaps.some((g) => /Caribbean District/.test(g) && /sad\.usace\.army\.mil/.test(g))).toBe(true);
    expect(d.stateLayer.certifier).toBe("Puerto Rico Environmental Quality Board");
  });

  it("reports suspensions and California's final 401 decision as gaps", () => {
    expect(run({ state: "MA", district: "NAE" }).coverageGaps.some((g) => /suspended the nationwide permits/.test(g))).toBe(true);
    expect(run({ state: "VA", district: "NAO", activity: "commercial-development" }).coverageGaps.some((g) => /NWP 39 is suspended in Virginia/.test(g))).toBe(true);
    const ca = run({ state: "CA", district: "SPK", activity: "utility-line" }).coverageGaps;
    expect(ca.some((g) => /certifies NWP 57/.test(g))).toBe(true);
    expect(run({ state: "CA", district: "SPK" }).coverageGaps.some((g) => /denies certification for NWP 29/.test(g))).toBe(true);
  });

  it("provenance starts with the ruleset's Federal Register citation", () => {
    const d = run({});
    expect(d.provenance[0].label).toMatch(/91 FR 768/);
    expect(d.provenance[0].url).toBe(ds.ruleset.sourceUrl);
    expect(new Set(d.provenance.map((p) => p.url)).size).toBe(d.provenance.length);
  });

  it("stream-bed feet given without a held limit leave eligibility unknown, never within; temporary acres are a gap", () => {
    const d = run({ aquaticResourceType: "stream", streamBedLinearFeet: 5000, temporaryImpactAcres: 2 });
    expect(d.candidates[0].eligible).toBeNull();
    expect(d.candidates[0].reasons.map((r) => r.code)).toEqual(["limit-not-confirmed", "linear-feet-limit-not-held"]);
    expect(d.candidates[0].reasons[1].message).toBe("No stream-bed limit in linear feet is held for NWP 29, so whether 5000 linear feet of stream-bed loss fits it is unknown; confirm with the Corps district.");
    expect(d.coverageGaps.some((g) => /No stream-bed limit in linear feet is held for NWP 29, so the 5000 linear feet given leaves its eligibility unknown/.test(g))).toBe(true);
    expect(d.coverageGaps.some((g) => /Temporary impacts \(2 acres\)/.test(g))).toBe(true);
  });
});

describe("paths the held facts do not reach (fixture dataset)", () => {
  // NWP 29 with a verified acreage limit, a 300-ft stream-bed limit and a PCN above 100 ft;
  // NWP 21 with a verified limit (its always-PCN condition stays).
  const fx = fixtureDataset((raw) => {
    const p29 = raw.permits.find((p) => p.number === 29)!;
    p29.acreageLimits = [{ ...p29.acreageLimits[0], appliesTo: ["wetland", "stream", "open-water", "tidal"], confidence: "verified", basis: "official-text" }];
    p29.streamBedLinearFeetLimit = { appliesTo: ["stream"], value: 300, unit: "linear feet", display: "300 linear feet", derivation: "Fixture limit for the test.", sourceUrl: p29.sourceUrl, confidence: "verified", basis: "official-text" };
    p29.pcnConditions = [{ kind: "linear-feet-above", threshold: 100, unit: "linear feet", description: "Fixture PCN.", sourceUrl: p29.sourceUrl, confidence: "verified", basis: "official-text" }];
    p29.notification = { held: true, summary: "Fixture: PCN above 100 linear feet only.", sourceUrl: p29.sourceUrl, confidence: "verified", basis: "official-text" };
    const p21 = raw.permits.find((p) => p.number === 21)!;
    p21.acreageLimits = [{ ...p29.acreageLimits[0] }];
  });
  const fxRun = (over: Record<string, unknown>) => determine(fx, project(over), TODAY).determination;

  it("linear feet within and below the PCN threshold: nwp-likely, no 'unverified' in the headline", () => {
    const d = fxRun({ aquaticResourceType: "stream", permanentImpactAcres: 0.2, streamBedLinearFeet: 80 });
    expect(d.verdict).toBe("nwp-likely");
    expect(d.candidates[0].reasons.map((r) => r.code)).toEqual(["acreage-within-limit", "linear-feet-within-limit"]);
    expect(d.headline).not.toMatch(/unverified/);
  });

  it("linear feet above the PCN threshold: nwp-with-pcn with a linear-feet trigger", () => {
    const d = fxRun({ aquaticResourceType: "stream", permanentImpactAcres: 0.2, streamBedLinearFeet: 250 });
    expect(d.verdict).toBe("nwp-with-pcn");
    expect(d.pcn.triggers[0]).toMatchObject({ permitNumber: 29, inputValue: "250 linear feet", confidence: "verified" });
  });

  it("linear feet above the limit: eligible false, individual-permit-likely", () => {
    const d = fxRun({ aquaticResourceType: "stream", permanentImpactAcres: 0.2, streamBedLinearFeet: 301 });
    expect(d.candidates[0].eligible).toBe(false);
    expect(d.candidates[0].reasons[1].code).toBe("linear-feet-exceeds-limit");
    expect(d.verdict).toBe("individual-permit-likely");
  });

  it("linear feet needed but missing: eligible null, insufficient-data", () => {
    const d = fxRun({ aquaticResourceType: "stream", permanentImpactAcres: 0.2 });
    expect(d.candidates[0].eligible).toBeNull();
    expect(d.candidates[0].reasons[1].code).toBe("linear-feet-not-given");
    expect(d.verdict).toBe("insufficient-data");
  });

  it("an always-PCN permit that is eligible requires a PCN", () => {
    const d = fxRun({ activity: "mining", permanentImpactAcres: 0.2 });
    expect(d.candidates.map((c) => c.eligible)).toEqual([true, null, null, null]);
    expect(d.verdict).toBe("nwp-with-pcn");
    expect(d.pcn.triggers[0]).toMatchObject({ permitNumber: 21, inputValue: "any NWP 21 activity" });
    expect(d.pcn.triggers[0].checkedOn).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });
});

describe("validation", () => {
  const violations = (input: unknown) => {
    const v = validateProject(ds, input as never);
    return v.ok ? [] : v.violations;
  };

  it("reports every missing field at once", () => {
    const v = violations({});
    expect(v.map((x) => [x.field, x.reason])).toEqual([
      ["state", ViolationReason.MISSING], ["district", ViolationReason.MISSING], ["activity", ViolationReason.MISSING],
      ["aquaticResourceType", ViolationReason.MISSING], ["permanentImpactAcres", ViolationReason.MISSING],
    ]);
  });

  it("unknown identifiers give UNKNOWN_VALUE with the full valid set", () => {
    const v = violations(project({ state: "ZZ", district: "XYZ", activity: "paving", aquaticResourceType: "lake" }));
    expect(v.map((x) => x.reason)).toEqual(Array(4).fill(ViolationReason.UNKNOWN_VALUE));
    expect(v[0].knownValues).toHaveLength(56);
    expect(v[1].knownValues).toHaveLength(38);
    expect(v[1].knownValues).toEqual(ds.districtCodes);
    expect(v[2].knownValues).toHaveLength(15);
    expect(v[3].knownValues).toEqual(["wetland", "stream", "open-water", "tidal"]);
  });

  it("malformed values give MALFORMED", () => {
    const v = violations(project({ state: "Texas", district: 12, permanentImpactAcres: -1, temporaryImpactAcres: Number.NaN, streamBedLinearFeet: Number.POSITIVE_INFINITY }));
    expect(v.map((x) => [x.field, x.reason])).toEqual([
      ["state", ViolationReason.MALFORMED], ["district", ViolationReason.MALFORMED], ["permanentImpactAcres", ViolationReason.MALFORMED],
      ["temporaryImpactAcres", ViolationReason.MALFORMED], ["streamBedLinearFeet", ViolationReason.MALFORMED],
    ]);
    expect(violations(project({ permanentImpactAcres: "0.3" }))[0]).toMatchObject({ field: "permanentImpactAcres", reason: ViolationReason.MALFORMED });
  });

  it("normalises case and whitespace of identifiers", () => {
    const v = validateProject(ds, project({ state: " tx", district: "swf", activity: "Residential-Development", aquaticResourceType: "WETLAND", permanentImpactAcres: -0 }));
    expect(v.ok && v.input).toEqual({ state: "TX", district: "SWF", activity: "residential-development", aquaticResourceType: "wetland", permanentImpactAcres: 0 });
  });

  it("determine throws ConnectError InvalidArgument carrying the violations", () => {
    let err: unknown;
    try {
      determine(ds, project({ district: "XYZ", permanentImpactAcres: undefined }), TODAY);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConnectError);
    expect((err as ConnectError).code).toBe(Code.InvalidArgument);
    expect(badRequestOf(err as ConnectError)?.violations.map((v) => v.field)).toEqual(["district", "permanentImpactAcres"]);
  });

  it("decide is deterministic", () => {
    const input: NormalizedInput = { state: "CA", district: "SPK", activity: "utility-line", aquaticResourceType: "stream", permanentImpactAcres: 0.25, streamBedLinearFeet: 10 };
    expect(JSON.stringify(decide(ds, input, TODAY))).toBe(JSON.stringify(decide(ds, { ...input }, TODAY)));
  });
});

describe("throughput", () => {
  it("decides well over 20,000 projects per second on one core", () => {
    const inputs = ds.activityIds.flatMap((activity, i) => ds.resourceTypes.map((aquaticResourceType) =>
      project({ activity, aquaticResourceType, state: ds.stateCodes[i], district: ds.districtCodes[i], permanentImpactAcres: (i % 7) / 10, streamBedLinearFeet: 50 })));
    for (let i = 0; i < 2000; i++) determine(ds, inputs[i % inputs.length], TODAY); // warm-up
    const n = 40_000;
    const t0 = performance.now();
    for (let i = 0; i < n; i++) determine(ds, inputs[i % inputs.length], TODAY);
    const perSecond = n / ((performance.now() - t0) / 1000);
    expect(perSecond).toBeGreaterThan(20_000);
  });
});
