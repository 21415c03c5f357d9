// One test per 2022 CGP requirement id, with the concrete value, citation and confidence held.
import { TODAY } from "../testing.js";
import { create } from "@bufbuild/protobuf";
import { Basis, Confidence } from "@permits/proto/common/v1/common";
import { RequirementKind, SiteInputSchema, type Requirement, type SiteInput } from "@permits/proto/stormwater/v1/stormwater";
import { describe, expect, test } from "vitest";
import { loadDataset } from "../dataset.js";
import { determineStormwater } from "./index.js";

const ds = loadDataset();
const CGP_PAGE = "https://www.epa.gov/npdes/2022-construction-general-permit-cgp";
type SiteInit = Partial<Omit<SiteInput, "$typeName">>;

function reqs(extra: SiteInit = {}): Map<string, Requirement> {
  const d = determineStormwater(ds, create(SiteInputSchema, { state: "MA", activity: "construction", disturbedAcres: 3, ...extra }), TODAY);
  return new Map(d.requirements.map((r) => [r.id, r]));
}
function value(r: Requirement): number | string | null {
  const k = r.value?.kind;
  if (!k || k.case === "nullValue") return null;
  if (k.case === "numberValue" || k.case === "stringValue") return k.value;
  throw new Error(`unexpected value kind ${k.case}`);
}
const STANDARD = { dischargesToImpairedWater: false, dischargesToTier2Water: false };

test("the 14 requirement ids of document 1, in order", () => {
  expect([...reqs().keys()]).toEqual([
    "inspection.frequency.option1", "inspection.frequency.option2", "inspection.report.deadline", "inspection.qualifiedPerson",
    "stabilization.initiate", "stabilization.complete", "filing.swpppBeforeNoi", "filing.noi", "filing.not",
    "corrective.minor", "corrective.major", "corrective.documentation", "retention.inspection", "buffer.trigger",
  ]);
});

describe("inspection.frequency.option1", () => {
  test("standard: 7 days, Part 4.2, verified on EPA's Site Inspection Report form (agency-form)", () => {
    const r = reqs(STANDARD).get("inspection.frequency.option1")!;
    expect(r.kind).toBe(RequirementKind.INSPECTION);
    expect(value(r)).toBe(7);
    expect(r.citation?.sourceCitation).toBe("2022 CGP Part 4.2 (standard frequency)");
    expect(r.citation?.quote).toBe("At least once every 7 calendar days");
    expect(r.citation?.confidence).toBe(Confidence.VERIFIED);
    expect(r.citation?.basis).toBe(Basis.AGENCY_FORM);
    expect(r.citation?.sourceUrl).toBe(CGP_PAGE);
  });
  test("impaired water: 7 days and within 24 hours of a 0.25-inch storm, Part 4.3.1", () => {
    const r = reqs({ dischargesToImpairedWater: true }).get("inspection.frequency.option1")!;
    expect(value(r)).toBe(7);
    expect(r.citation?.sourceCitation).toBe("2022 CGP Part 4.3.1 (increased frequency)");
    expect(r.detail).toContain("within 24 hours");
    expect(r.detail).toContain("0.25 inches");
    expect(r.because).toContain("dischargesToImpairedWater is true");
  });
});

describe("inspection.frequency.option2", () => {
  test("standard: 14 days plus within 24 hours of a 0.25-inch storm or 3.25-inch snowmelt", () => {
    const r = reqs(STANDARD).get("inspection.frequency.option2")!;
    expect(value(r)).toBe(14);
    expect(r.detail).toContain("once every 14 calendar days");
    expect(r.detail).toContain("3.25 inches or more of snow");
    expect(r.because).toBe("dischargesToImpairedWater and dischargesToTier2Water were both stated false.");
  });
  test("Tier 2 water: the 14-day option gives way to 7 days", () => {
    const r = reqs({ dischargesToTier2Water: true }).get("inspection.frequency.option2")!;
    expect(value(r)).toBe(7);
    expect(r.because).toContain("dischargesToTier2Water is true");
  });
  test("receiving water unstated: null, both cases given, the unchecked input named", () => {
    const r = reqs().get("inspection.frequency.option2")!;
    expect(value(r)).toBeNull();
    expect(r.detail).toContain("value 14");
    expect(r.detail).toContain("value 7");
    expect(r.because).toBe("dischargesToImpairedWater and dischargesToTier2Water were not stated; the value turns on them, and an unstated input is never assumed false.");
  });
});

test("inspection.report.deadline: 24 hours, no Part held (Not verified)", () => {
  const r = reqs().get("inspection.report.deadline")!;
  // No source states the value: withheld, kept in words in the detail (the rule of caution).
  expect(value(r)).toBeNull();
  expect(r.detail).toContain("24 hours");
  expect(r.detail).toMatch(/The value is not given because it was not confirmed in any source we could read; confirm with EPA\.$/);
  expect(r.citation?.sourceCitation).toBe("Not verified");
  expect(r.citation?.confidence).toBe(Confidence.UNVERIFIED);
});

test("inspection.qualifiedPerson: qualified person, Parts 4.1 and 6.3.b, unverified", () => {
  const r = reqs().get("inspection.qualifiedPerson")!;
  expect(value(r)).toBe("qualified person");
  expect(r.citation?.sourceCitation).toBe("2022 CGP Part 4.1 (who inspects) and Part 6.3.b (training topics)");
  expect(r.citation?.quote).toBe("Inspections may only be conducted by a qualified person");
  expect(r.citation?.confidence).toBe(Confidence.UNVERIFIED);
});

test("stabilization.initiate: immediately, Part 2.2.14, unverified", () => {
  const r = reqs().get("stabilization.initiate")!;
  expect(r.kind).toBe(RequirementKind.STABILIZATION);
  // No source states the value: withheld, kept in words in the detail (the rule of caution).
  expect(value(r)).toBeNull();
  expect(r.detail).toContain("immediately");
  expect(r.detail).toMatch(/The value is not given because it was not confirmed in any source we could read; confirm with EPA\.$/);
  expect(r.citation?.sourceCitation).toMatch(/^2022 CGP Part 2\.2\.14/);
  expect(r.citation?.confidence).toBe(Confidence.UNVERIFIED);
});

describe("stabilization.complete", () => {
  test.each([
    ["more than 5 acres open at once", { disturbedAcres: 20, maxDisturbedAcresAtOneTime: 5.5 }, 7],
    ["5 acres open at once, standard water", { disturbedAcres: 20, maxDisturbedAcresAtOneTime: 5, ...STANDARD }, 14], // document 1 fixes 14 days
    ["unphased 6 acres (max not stated)", { disturbedAcres: 6 }, 7],
    ["unphased 5 acres, standard water", { disturbedAcres: 5, ...STANDARD }, 14],
    ["2 acres, impaired water", { disturbedAcres: 2, dischargesToImpairedWater: true, dischargesToTier2Water: false }, 7],
    ["2 acres, Tier 2 water, impaired unstated", { disturbedAcres: 2, dischargesToTier2Water: true }, 7],
    ["2 acres, receiving water unstated", { disturbedAcres: 2 }, 7], // the stricter value, with the reason
    ["2 acres, impaired false but Tier 2 unstated", { disturbedAcres: 2, dischargesToImpairedWater: false }, 7],
  ] as const)("%s -> %s", (_l, site, expected) => {
    const r = reqs(site).get("stabilization.complete")!;
    expect(value(r)).toBe(expected);
    expect(r.citation?.confidence).toBe(Confidence.UNVERIFIED);
  });
  test("unphased site: because says the whole total is taken as open at once", () => {
    expect(reqs({ disturbedAcres: 6 }).get("stabilization.complete")!.because).toBe(
      "6 acres disturbed at one time (not stated: the whole total is taken as open at once) is more than 5 acres.",
    );
  });
  test("unstated receiving water: the stricter 7 days, both cases and the unchecked input named", () => {
    const r = reqs({ disturbedAcres: 2, dischargesToImpairedWater: false }).get("stabilization.complete")!;
    expect(r.because).toBe("2 acres disturbed at one time (not stated: the whole total is taken as open at once) is 5 acres or fewer, but dischargesToTier2Water was not stated; the value turns on it, and an unstated input is never assumed false. Until it is stated, the stricter value, 7 days, is given.");
    expect(r.detail).toContain("7 calendar days");
    expect(r.detail).toContain("14 calendar days");
    expect(r.because).toContain("dischargesToTier2Water was not stated");
    expect(r.because).not.toContain("dischargesToImpairedWater was not stated");
  });
});

test("filing.swpppBeforeNoi: before NOI, Parts 1.4 and 7.1 (2017 numbering), unverified", () => {
  const r = reqs().get("filing.swpppBeforeNoi")!;
  expect(r.kind).toBe(RequirementKind.FILING);
  expect(value(r)).toBe("before NOI");
  expect(r.citation?.sourceCitation).toBe("2022 CGP Parts 1.4 and 7.1 (numbers from the 2017 CGP)");
  expect(r.citation?.confidence).toBe(Confidence.UNVERIFIED);
});

test("filing.noi: 14 days before commencing, Part 1.4.3, unverified", () => {
  const r = reqs().get("filing.noi")!;
  expect(value(r)).toBe(14);
  expect(r.citation?.sourceCitation).toBe("2022 CGP Part 1.4.3 (NOI deadlines)");
  expect(r.citation?.quote).toBe("Deadlines for submittal of a Notice of Intent (NOI) are provided in Part 1.4.3 of the 2022 CGP.");
  expect(r.citation?.confidence).toBe(Confidence.UNVERIFIED);
});

test("filing.not: 30 days, Parts 8.2 and 8.3, unverified", () => {
  const r = reqs().get("filing.not")!;
  expect(value(r)).toBe(30);
  expect(r.citation?.sourceCitation).toBe("2022 CGP Parts 8.2 and 8.3 (NOT through NeT); 30-day deadline from an EPA brochure on an earlier CGP");
  expect(r.citation?.confidence).toBe(Confidence.UNVERIFIED);
});

test("corrective.minor: close of next business day, Part 2.1.4.b, from EPA's guidance at nepis.epa.gov, unverified (not the permit text or a form)", () => {
  const r = reqs().get("corrective.minor")!;
  expect(r.kind).toBe(RequirementKind.CORRECTIVE_ACTION);
  expect(value(r)).toBe("close of next business day");
  expect(r.detail).toContain("within 7 calendar days");
  expect(r.citation?.sourceCitation).toContain("Part 2.1.4.b");
  expect(r.citation?.sourceUrl).toBe("https://nepis.epa.gov/Exe/ZyPURL.cgi?Dockey=P101AIZ1.txt");
  expect(r.citation?.quote).toBe("initiated by the operator immediately and completed by the close of the next business day");
  expect(r.citation?.confidence).toBe(Confidence.UNVERIFIED);
  expect(r.citation?.basis).toBe(Basis.AGENCY_FORM);
});

test("corrective.major: 7 days, Parts 5.1 and 5.2, unverified (deadline not confirmed)", () => {
  const r = reqs().get("corrective.major")!;
  // No source states the value: withheld, kept in words in the detail (the rule of caution).
  expect(value(r)).toBeNull();
  expect(r.detail).toContain("7-calendar-day");
  expect(r.detail).toMatch(/The value is not given because it was not confirmed in any source we could read; confirm with EPA\.$/);
  expect(r.citation?.sourceCitation).toBe("CGP Parts 5.1 and 5.2 (deadline not confirmed)");
  expect(r.citation?.confidence).toBe(Confidence.UNVERIFIED);
});

test("corrective.documentation: 24 hours, Part 5.4, unverified", () => {
  const r = reqs().get("corrective.documentation")!;
  expect(r.kind).toBe(RequirementKind.RECORDKEEPING);
  expect(value(r)).toBe(24);
  expect(r.citation?.sourceCitation).toBe("2022 CGP Part 5.4 (number from earlier CGPs)");
  expect(r.citation?.confidence).toBe(Confidence.UNVERIFIED);
});

test("retention.inspection: 3 years, Not verified", () => {
  const r = reqs().get("retention.inspection")!;
  expect(r.kind).toBe(RequirementKind.RECORDKEEPING);
  // No source states the value: withheld, kept in words in the detail (the rule of caution).
  expect(value(r)).toBeNull();
  expect(r.detail).toContain("3 years");
  expect(r.detail).toMatch(/The value is not given because it was not confirmed in any source we could read; confirm with EPA\.$/);
  expect(r.citation?.sourceCitation).toBe("Not verified");
  expect(r.citation?.confidence).toBe(Confidence.UNVERIFIED);
});

test("buffer.trigger: 50 feet, Not verified, because names the missing site fact", () => {
  const r = reqs().get("buffer.trigger")!;
  expect(r.kind).toBe(RequirementKind.BUFFER);
  expect(value(r)).toBe(50);
  expect(r.citation?.sourceCitation).toBe("Not verified");
  expect(r.citation?.confidence).toBe(Confidence.UNVERIFIED);
  expect(r.because).toContain("within 50 feet");
});

test("every requirement cites an official URL; only facts read on EPA's inspection form are verified", () => {
  const all = [...reqs().values()];
  for (const r of all) expect(r.citation?.sourceUrl).toMatch(/^https:\/\/(www|nepis)\.epa\.gov\//);
  const verified = all.filter((r) => r.citation?.confidence === Confidence.VERIFIED);
  expect(verified.map((r) => r.id)).toEqual(["inspection.frequency.option1", "inspection.frequency.option2"]);
  for (const r of verified) expect([Basis.OFFICIAL_TEXT, Basis.AGENCY_FORM]).toContain(r.citation?.basis);
  // Unverified: a prior edition, a third party, nothing read, or an agency's own description (corrective.minor).
  for (const r of all.filter((x) => x.citation?.confidence === Confidence.UNVERIFIED)) expect([Basis.AGENCY_FORM, Basis.PRIOR_EDITION, Basis.SECONDARY, Basis.UNSOURCED]).toContain(r.citation?.basis);
});

test("parts that turn only on the dataset and the tri-state cases are shared and frozen; site numbers stay per answer", () => {
  const site = (disturbedAcres: number) => create(SiteInputSchema, { state: "MA", activity: "construction", disturbedAcres, dischargesToImpairedWater: true });
  const a = determineStormwater(ds, site(3), TODAY);
  const b = determineStormwater(ds, site(4), TODAY);
  expect(b.notices).toBe(a.notices);
  expect(Object.isFrozen(a.notices)).toBe(true);
  const byId = (d: typeof a, id: string) => d.requirements.find((r) => r.id === id)!;
  // A receiving-water requirement is one shared message per case of the two inputs...
  expect(byId(b, "inspection.frequency.option1")).toBe(byId(a, "inspection.frequency.option1"));
  // ...while stabilization's reason carries each site's own acreage.
  expect(byId(a, "stabilization.complete").because).toContain("3 acres disturbed at one time");
  expect(byId(b, "stabilization.complete").because).toContain("4 acres disturbed at one time");
  expect(a.coverageReason).toContain("3 acres");
  // Another case of the inputs gets its own, differently worded requirement.
  const unstated = determineStormwater(ds, create(SiteInputSchema, { state: "MA", activity: "construction", disturbedAcres: 3 }), TODAY);
  expect(byId(unstated, "inspection.frequency.option1")).not.toBe(byId(a, "inspection.frequency.option1"));
  expect(byId(unstated, "inspection.frequency.option1").because).toContain("not stated");
});
