// Table tests for the honesty rules of document 1 and the coverage/authority rules of issue 3.
import { TODAY } from "../testing.js";
import { partlyReadPermitText } from "./texts.js";
import { create, toBinary } from "@bufbuild/protobuf";
import { Basis, Confidence } from "@permits/proto/common/v1/common";
import {
  Coverage,
  CredentialGate,
  DeterminationSchema,
  ScreenStatus,
  SiteInputSchema,
  type Determination,
  type SiteInput,
} from "@permits/proto/stormwater/v1/stormwater";
import { describe, expect, test } from "vitest";
import { loadDataset } from "../dataset.js";
import { coversAcres } from "./authority.js";
import { CGP_ID, determineStormwater, NOTICE_DRAFT_DOCUMENT, NOTICE_NO_INSPECTION } from "./index.js";

const ds = loadDataset();
type SiteInit = Partial<Omit<SiteInput, "$typeName">>;
const det = (s: SiteInit): Determination =>
  determineStormwater(ds, create(SiteInputSchema, { activity: "construction", disturbedAcres: 3, ...s }), TODAY);
const stepOf = (d: Determination, name: string) => d.derivation.find((x) => x.step === name);
const raw = (code: string) => ds.jurisdictions.get(code)!.raw;
const unverifiedCodes = ds.codes.filter((c) => raw(c).confidence === "unverified");
const stateRun = ds.codes.filter((c) => raw(c).authority === "state");

describe("coverage threshold", () => {
  test.each([
    [3.2, undefined, Coverage.REQUIRED, "3.2 acres disturbed is at or above the 1-acre threshold (3.2 >= 1)"],
    [1, false, Coverage.REQUIRED, "1 acre disturbed is at or above the 1-acre threshold (1 >= 1)"],
    [0.99, false, Coverage.NOT_REQUIRED, "0.99 acres disturbed is below the 1-acre threshold (0.99 < 1) and the site is not part of a larger common plan"],
    [0, undefined, Coverage.NOT_REQUIRED, "0 acres disturbed is below the 1-acre threshold (0 < 1)"],
    [0.5, true, Coverage.REQUIRED, "0.5 acres disturbed is below the 1-acre threshold (0.5 < 1), but the site is part of a larger common plan"],
  ] as const)("%s acres, partOfLargerPlan %s", (acres, plan, coverage, reason) => {
    const d = det({ state: "NH", disturbedAcres: acres, partOfLargerPlan: plan });
    expect(d.coverage).toBe(coverage);
    expect(d.coverageReason).toContain(reason);
    const s = stepOf(d, "coverage threshold")!;
    expect(s.citation?.sourceCitation).toBe("2022 CGP Part 1.1 (eligibility): small construction activity");
    // A state agency's summary of EPA's permit: a third party, so unverified.
    expect(s.citation?.confidence).toBe(Confidence.UNVERIFIED);
    expect(s.citation?.basis).toBe(Basis.SECONDARY);
  });

  test("unstated partOfLargerPlan under 1 acre is read as its default and said so", () => {
    expect(stepOf(det({ state: "NH", disturbedAcres: 0.4 }), "assumption: larger common plan")!.result).toContain("not stated and is read as false");
  });

  test("not required under the CGP: no requirements, and a notice that an empty list is not 'nothing required'", () => {
    const d = det({ state: "MA", disturbedAcres: 0.3 });
    expect(d.requirements).toEqual([]);
    expect(d.notices.some((n) => n.includes("permit coverage is not required") && n.includes("does not mean nothing is required"))).toBe(true);
  });
});

describe("industrial activity is always verify", () => {
  test.each(["MA", "CA", "AK", "VI", "DC"])("%s", (state) => {
    const d = det({ state, activity: "industrial", disturbedAcres: 10 });
    expect(d.coverage).toBe(Coverage.VERIFY);
    expect(d.coverageReason).toContain("expired on 28 February 2026");
    expect(d.coverageReason).toContain("Multi-Sector General Permit");
    expect(d.requirements).toEqual([]);
    expect(d.confidence).toBe(Confidence.UNVERIFIED);
    expect(d.notices.some((n) => n.includes("does not mean nothing is required"))).toBe(true);
  });
  test("in an EPA area the permit is the expired 2021 MSGP; in a state programme none is asserted", () => {
    const ma = det({ state: "MA", activity: "industrial" });
    expect(ma.permit?.id).toBe("msgp-2021");
    expect(ma.permit?.expiryDate).toBe("2026-02-28");
    expect(ma.permit?.confidence).toBe(Confidence.UNVERIFIED);
    expect(det({ state: "CA", activity: "industrial" }).permit).toBeUndefined();
  });
});

describe("permitting authority", () => {
  test.each([
    ["MA", {}, CGP_ID, "epa-area"],
    ["NM", {}, CGP_ID, "epa-area"],
    ["PR", {}, CGP_ID, "epa-area"],
    ["CA", { onTribalLand: true }, CGP_ID, "tribal"],
    ["GA", { onTribalLand: true }, CGP_ID, "tribal"],
    ["CO", { federalFacility: true }, CGP_ID, "federal"],
    ["DE", { federalFacility: true }, CGP_ID, "federal"],
    ["VT", { federalFacility: true }, CGP_ID, "federal"],
    ["WA", { federalFacility: true }, CGP_ID, "federal"],
    ["TX", { federalFacility: true }, "tx-txr150000", "state"],
    ["CO", {}, "co-cor400000", "state"],
    ["IL", { onTribalLand: false, federalFacility: false }, "il-ilr10", "state"],
  ] as const)("%s %j -> %s", (state, extra, permitId, kind) => {
    const d = det({ state, ...extra });
    expect(d.permit?.id).toBe(permitId);
    const s = stepOf(d, "permitting authority")!;
    if (kind === "tribal") expect(s.result).toContain("onTribalLand is true");
    if (kind === "federal") expect(s.result).toContain("federalFacility is true");
    expect(d.jurisdiction?.governingPermitId).toBe(kind === "state" ? raw(state).governingPermitId : CGP_ID);
  });

  test("tribal land is verified where an EPA regional page names the state, unverified elsewhere", () => {
    const id = det({ state: "ID", onTribalLand: true });
    expect(id.jurisdiction?.name).toBe("Idaho (Indian country)");
    expect(id.jurisdiction?.confidence).toBe(Confidence.VERIFIED);
    expect(stepOf(id, "permitting authority")!.citation?.sourceUrl).toBe("https://www.epa.gov/npdes-permits/stormwater-discharges-construction-activities-region-10");
    const ga = det({ state: "GA", onTribalLand: true });
    expect(ga.jurisdiction?.confidence).toBe(Confidence.UNVERIFIED);
    expect(ga.jurisdiction?.credential?.gate).toBe(CredentialGate.UNKNOWN);
    expect(ga.jurisdiction?.note).toContain("not in the third-party list");
    expect(ga.requirements).toHaveLength(14);
  });

  test("federalFacility outside the Appendix B states keeps the state and names the lands-of-exclusive-federal-jurisdiction assumption", () => {
    const d = det({ state: "TX", federalFacility: true });
    expect(stepOf(d, "assumption: lands of exclusive federal jurisdiction")!.result).toContain("Lands of Exclusive Federal Jurisdiction");
  });

  test("Oklahoma states its oil-and-gas assumption", () => {
    expect(stepOf(det({ state: "OK" }), "assumption: Oil and gas construction activities in Oklahoma")!.result).toContain("assumes it is not");
  });

  test("Mississippi picks its permit by size; under 1 acre in a plan it does not guess", () => {
    expect(det({ state: "MS", disturbedAcres: 6 }).permit?.id).toBe("ms-msr10");
    expect(det({ state: "MS", disturbedAcres: 2 }).permit?.id).toBe("ms-small");
    expect(det({ state: "MS", disturbedAcres: 0.5, partOfLargerPlan: true }).permit).toBeUndefined();
  });

  test("Louisiana: LAR100000 governs 5 acres or more and LAR200000 1 to under 5; a site below both gets none and is told why", () => {
    expect(det({ state: "LA", disturbedAcres: 6 }).permit?.id).toBe("la-lar100000");
    const small = det({ state: "LA", disturbedAcres: 2 });
    // LAR200000's number is read only in a third party's roadmap: the permit and the jurisdiction carry it unverified.
    expect(small.permit).toMatchObject({ id: "la-lar200000", permitNumber: "LAR200000", confidence: Confidence.UNVERIFIED, basis: Basis.SECONDARY });
    expect(small.jurisdiction).toMatchObject({ permitNumber: "LAR200000", confidence: Confidence.UNVERIFIED, basis: Basis.SECONDARY });
    const tiny = det({ state: "LA", disturbedAcres: 0.5, partOfLargerPlan: true });
    expect(tiny.permit).toBeUndefined();
    expect(stepOf(tiny, "governing permit")!.result).toBe(
      "None of the construction permits identified for Louisiana covers a site of this size (LPDES General Permit for Discharges of Storm Water from Construction Activities Five (5) Acres or More (LAR100000) covers 5 acres or more; LPDES General Permit for Storm Water Discharges from Small Construction Activities (LAR200000) covers 1 to under 5 acres). The permit that does was not identified, so no requirements are listed.",
    );
    expect(tiny.notices.join(" ")).not.toContain("LAR100000");
  });
});

// States where some requirements of the governing permit have been read (a partial list), and of
// those the ones whose permit is answered as in force (Arizona's may have lapsed: see below).
const partlyRead = stateRun.filter((c) => raw(c).statePermits.some((p) => p.requirements.length > 0));
const attaching = partlyRead.filter((c) => !raw(c).statePermits.some((p) => p.replacementProposed));

describe("requirements attach only where the governing permit has been read", () => {
  test("partly read state permits are the fifteen largest construction markets'", () =>
    expect(partlyRead.sort()).toEqual(["AZ", "CA", "CO", "FL", "GA", "NC", "NY", "OH", "PA", "SC", "TN", "TX", "UT", "VA", "WA"]));

  test.each(stateRun.filter((c) => !partlyRead.includes(c)))("%s: no requirements, no CGP numbers substituted, a notice names the agency", (state) => {
    const d = det({ state, disturbedAcres: 8 });
    expect(d.requirements).toEqual([]);
    expect(d.eligibilityScreens).toEqual([]);
    expect(d.permit?.id).not.toBe(CGP_ID);
    const agency = raw(state).agencyName;
    expect(d.notices.some((n) => n.includes(agency) && n.includes("does not mean nothing is required"))).toBe(true);
  });

  test.each(attaching)("%s: the governing-permit step counts the requirements read with words that agree (issue 27: \"1 of its requirements has been read and are listed\")", (state) => {
    const d = det({ state, disturbedAcres: 8 });
    const n = d.requirements.length;
    const read = raw(state).statePermits[0].requirements.length;
    const text = d.derivation.find((x) => x.step === "governing permit")!.result;
    if (n === read) expect(text).toContain(n === 1 ? "Identified; 1 of its requirements has been read and is listed" : `Identified; ${n} of its requirements have been read and are listed`);
    else expect(text).toContain(`Identified; ${read} of its requirements have been read, and the ${n} that apply to a site of this size are listed`);
  });

  test("Arizona: AZG2020-001's expiry is not held and ADEQ proposed its replacement in 2025, so a site needing coverage is verify, as for an expired permit", () => {
    expect(attaching).not.toContain("AZ");
    const d = det({ state: "AZ", disturbedAcres: 8 });
    expect(d.coverage).toBe(Coverage.VERIFY);
    expect(d.requirements).toEqual([]);
    expect(d.coverageReason).toContain("whether AZPDES Construction General Permit AZG2020-001 is still in force is not confirmed");
    const step = d.derivation.find((x) => x.step === "permit in force")!;
    expect(step.citation).toMatchObject({ quote: "The proposed permit is intended to replace permit AZG2020-001.", confidence: Confidence.VERIFIED });
    expect(d.notices.some((n) => n.includes("may no longer be in force") && n.includes("does not mean nothing is required"))).toBe(true);
    // Below the threshold nothing is needed under any edition.
    expect(det({ state: "AZ", disturbedAcres: 0.5, partOfLargerPlan: false }).coverage).toBe(Coverage.NOT_REQUIRED);
  });

  test("the template itself, in both numbers", () => {
    expect(partlyReadPermitText("P", "2024", 1, true)).toBe("P (2024). Identified; 1 of its requirements has been read and is listed, each with its own citation. The rest of the permit was not read, and no other permit's numbers are substituted.");
    expect(partlyReadPermitText("P", "2024", 2, false)).toBe("P (2024). Identified; 2 of its requirements have been read and would be listed where coverage is required, each with its own citation. The rest of the permit was not read, and no other permit's numbers are substituted.");
  });

  test.each(attaching)("%s: only the requirements read, each with its own state citation, and a notice that the list is partial", (state) => {
    const d = det({ state, disturbedAcres: 8 });
    const held = raw(state).statePermits[0].requirements.filter((q) => coversAcres(q, 8));
    expect(d.requirements.map((r) => r.id)).toEqual(held.map((q) => q.id));
    for (const r of d.requirements) expect(r.citation?.sourceUrl).not.toContain("2022-construction-general-permit");
    expect(d.eligibilityScreens).toEqual([]);
    expect(d.permit?.id).not.toBe(CGP_ID);
    expect(d.notices.some((n) => n.includes("Only some requirements of the governing permit") && n.includes("does not mean nothing else is required"))).toBe(true);
  });

  test("a requirement the permit sets only for some sizes is listed only for them: TXR150000's large-site NOI and small-site MS4 notice", () => {
    const ids = (acres: number) => det({ state: "TX", disturbedAcres: acres }).requirements.map((r) => r.id);
    expect(ids(12)).toEqual(["filing.swpppBeforeNoi", "filing.noi", "inspection.frequency", "inspection.rainEvent", "stabilization.initiate", "stabilization.complete", "filing.not"]);
    expect(ids(3)).toEqual(["filing.swpppBeforeNoi", "filing.ms4Notice", "inspection.frequency", "inspection.rainEvent", "stabilization.initiate", "stabilization.complete", "filing.not"]);
    expect(ids(12)).toContain("filing.noi");
    expect(ids(12)).not.toContain("filing.ms4Notice");
    expect(ids(3)).toContain("filing.ms4Notice");
    expect(ids(3)).not.toContain("filing.noi");
    expect(ids(5)).toContain("filing.noi"); // 5 acres is a large site: the bound is inclusive below, exclusive above
    expect(ids(4.99)).toContain("filing.ms4Notice");
    const small = det({ state: "TX", disturbedAcres: 3 });
    expect(small.derivation.find((x) => x.step === "governing permit")!.result).toContain(`Identified; 8 of its requirements have been read, and the 7 that apply to a site of this size are listed`);
    expect(small.requirements.find((r) => r.id === "filing.ms4Notice")!.because).toBe("Applies because coverage under TPDES Construction Stormwater General Permit TXR150000 is required for this site and the permit sets it for sites of 1 to under 5 acres.");
  });

  test("the governing-permit words when no read requirement applies to the size", () => {
    expect(partlyReadPermitText("P", "2024", 2, true, 0)).toBe("P (2024). Identified; 2 of its requirements have been read; none of them applies to a site of this size, so none is listed. The rest of the permit was not read, and no other permit's numbers are substituted.");
    expect(partlyReadPermitText("P", "2024", 2, true, 1)).toBe("P (2024). Identified; 2 of its requirements have been read, and the 1 that applies to a site of this size is listed, each with its own citation. The rest of the permit was not read, and no other permit's numbers are substituted.");
  });

  test("a partial state list is not attached where coverage is not required", () => {
    expect(det({ state: "NC", disturbedAcres: 0.4 }).requirements).toEqual([]);
  });

  test("a verified state permit is identified though not read: Illinois", () => {
    const d = det({ state: "IL" });
    expect(d.permit?.name).toBe(raw("IL").statePermits[0].name);
    expect(d.permit?.confidence).toBe(Confidence.VERIFIED);
    // The answer as a whole is unverified: its coverage-threshold step cites a secondary page.
    expect(d.confidence).toBe(Confidence.UNVERIFIED);
    expect(d.notices[2]).toContain("has not been read by this service");
  });

  test("the CGP areas carry all 14 requirements and four screens", () => {
    const d = det({ state: "MA" });
    expect(d.requirements).toHaveLength(14);
    expect(d.eligibilityScreens.map((s) => s.id)).toEqual(["esa", "historic", "receiving-water", "prohibited"]);
    expect(d.eligibilityScreens[0].citation?.sourceCitation).toBe("2022 CGP Part 1.1.5 and Appendix D");
  });
});

describe("unverified jurisdictions still answer, unverified, naming the agency", () => {
  test.each(unverifiedCodes)("%s", (state) => {
    const d = det({ state });
    expect(d.confidence).toBe(Confidence.UNVERIFIED);
    expect(d.jurisdiction?.confidence).toBe(Confidence.UNVERIFIED);
    expect(d.jurisdiction?.note).toMatch(/Confirm/);
    expect(d.jurisdiction?.credential?.gate).toBe(CredentialGate.UNKNOWN);
    expect(d.notices.some((n) => n.startsWith("Unverified:"))).toBe(true);
    if (raw(state).authority === "state") {
      expect(d.permit).toBeUndefined();
      // A number held only from the agency's forms (Arkansas's ARR150000) is shown, unverified; it never makes a permit govern.
      expect(d.jurisdiction?.permitNumber).toBe(raw(state).statePermits[0]?.permitNumber ?? undefined);
    } else {
      expect(d.requirements).toHaveLength(14);
    }
  });
  test("no unverified route anywhere shows a gate other than unknown", () => {
    for (const c of ds.codes) {
      const pj = ds.jurisdictions.get(c)!;
      for (const r of [pj.base, pj.tribal, pj.federal]) {
        if (r && r.confidence !== Confidence.VERIFIED) expect(r.credential.gate).toBe("unknown");
      }
    }
  });
  test("no credential gate in the dataset is open", () => {
    for (const c of ds.codes) expect(raw(c).credential.gate).not.toBe("open");
  });
});

describe("tri-state inputs are never read as false", () => {
  test.each([
    // Unstated: the screen is unknown and the stabilization deadline is the stricter of its two values (document 1).
    [{}, ScreenStatus.UNKNOWN, 7],
    [{ dischargesToImpairedWater: false }, ScreenStatus.UNKNOWN, 7],
    [{ dischargesToTier2Water: false }, ScreenStatus.UNKNOWN, 7],
    // Both stated false, five acres or fewer open at once: 14 days, as document 1 fixes it.
    [{ dischargesToImpairedWater: false, dischargesToTier2Water: false }, ScreenStatus.PASS, 14],
    [{ dischargesToImpairedWater: true }, ScreenStatus.ACTION_REQUIRED, 7],
    [{ dischargesToTier2Water: true, dischargesToImpairedWater: false }, ScreenStatus.ACTION_REQUIRED, 7],
  ] as const)("%j -> screen %s, stabilization %s", (extra, status, days) => {
    const d = det({ state: "NM", disturbedAcres: 2, ...extra });
    expect(d.eligibilityScreens.find((s) => s.id === "receiving-water")!.status).toBe(status);
    const stab = d.requirements.find((r) => r.id === "stabilization.complete")!;
    const v = stab.value!.kind;
    expect(v.case === "nullValue" ? null : v.value).toBe(days);
  });
  test("the input echo leaves unstated tri-states unset and fills the boolean defaults", () => {
    const d = det({ state: "NM", disturbedAcres: 2 });
    expect(d.input?.dischargesToImpairedWater).toBeUndefined();
    expect(d.input?.dischargesToTier2Water).toBeUndefined();
    expect(d.input?.maxDisturbedAcresAtOneTime).toBeUndefined();
    expect([d.input?.partOfLargerPlan, d.input?.onTribalLand, d.input?.federalFacility, d.input?.aridClimate]).toEqual([false, false, false, false]);
    expect(d.derivation.filter((s) => s.step === "assumption: receiving water")).toHaveLength(2);
  });
  test("an unphased site is said so in a derivation step", () => {
    expect(stepOf(det({ state: "NM", disturbedAcres: 9 }), "assumption: disturbed at one time")!.result).toContain("assumed unphased, with the whole 9 acres open at once");
    expect(stepOf(det({ state: "NM", disturbedAcres: 9, maxDisturbedAcresAtOneTime: 3 }), "disturbed at one time")!.result).toBe("3 acres disturbed at one time (stated), of 9 acres in total.");
  });
  test("aridClimate adds the reduced-frequency step, cited to EPA's inspection form; the schedule itself is not claimed", () => {
    const s = stepOf(det({ state: "NM", aridClimate: true }), "reduced inspection frequency")!;
    expect(s.citation?.basis).toBe(Basis.AGENCY_FORM);
    expect(s.citation?.confidence).toBe(Confidence.VERIFIED);
    expect(s.result).toContain("The reduced schedule was not confirmed, so the standard values are shown.");
  });
});

describe("notices and derivation on every determination", () => {
  const sites: SiteInit[] = ds.codes.flatMap((state) => [
    { state }, { state, activity: "industrial" }, { state, disturbedAcres: 0.2 }, { state, onTribalLand: true },
  ]);
  test.each(sites.map((s) => [JSON.stringify(s), s] as const))("%s", (_l, s) => {
    const d = det(s);
    expect(d.notices.slice(0, 2)).toEqual([NOTICE_NO_INSPECTION, NOTICE_DRAFT_DOCUMENT]);
    const steps = d.derivation.map((x) => x.step);
    expect(steps).toContain("permitting authority");
    expect(steps).toContain("preparer credential");
    if (s.activity !== "industrial") expect(steps[0]).toBe("coverage threshold");
    expect(d.datasetVersion).toBe(ds.version);
    if (d.requirements.length === 0) expect(d.notices.some((n) => n.includes("An empty list does not mean nothing is required"))).toBe(true);
  });
  test("the two notices are the fixed strings of document 1", () => {
    expect(NOTICE_NO_INSPECTION).toBe("The service does not perform the physical site inspections the permit requires; a qualified person must do so on site.");
    expect(NOTICE_DRAFT_DOCUMENT).toBe("Where a state requires a credentialed preparer, a generated document is a draft for that person to review and sign, not a compliant filed plan.");
  });
});

describe("determinism", () => {
  test("identical input gives a byte-identical message", () => {
    const s = { state: "WA", disturbedAcres: 7.25, maxDisturbedAcresAtOneTime: 6, federalFacility: true, startDate: "2026-05-01" };
    expect(toBinary(DeterminationSchema, det(s))).toEqual(toBinary(DeterminationSchema, det({ ...s })));
  });
});
