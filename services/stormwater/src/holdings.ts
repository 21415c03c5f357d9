// What the dataset holds, per jurisdiction and in all, and on which basis: the coverage read-out
// (GET /api/v1/coverage and `npm run data:report`). Static: built once from the loaded dataset.
import { create } from "@bufbuild/protobuf";
import { basisOf, type BasisTally, deepFreeze, lastCheckedByGroup, tallyFacts } from "@permits/rules";
import { BasisCountSchema, type BasisCount } from "@permits/proto/common/v1/common";
import { GetCoverageResponseSchema, JurisdictionCoverageSchema, type GetCoverageResponse } from "@permits/proto/stormwater/v1/stormwater";
import { fixedByDocument1 } from "./engine/contract.js";
import { confidenceOf, gateOf, isWithheld } from "./engine/messages.js";
import type { Dataset } from "./engine/types.js";
import { stormwaterFacts } from "./changelog.js";

export function basisCounts(t: BasisTally[]): BasisCount[] {
  return t.map((x) => create(BasisCountSchema, { basis: basisOf(x.basis), confidence: confidenceOf(x.confidence), count: x.count }));
}

/** Facts the dataset does not hold (null): permit numbers, dates, and withheld requirement values. */
export function nullFacts(ds: Dataset): { label: string; count: number }[] {
  const rows = ds.raw.jurisdictions.jurisdictions;
  const permits = rows.flatMap((j) => j.statePermits);
  const cgp = ds.raw.cgpRequirements.requirements;
  const values = cgp.flatMap((q) => (q.cases ? Object.values(q.cases).map((c) => c.value) : [q.value ?? null]));
  return [
    // A number held on one of the state's permits counts (Louisiana: LAR100000 covers 5 acres or more only).
    { label: "jurisdictions without a permit number", count: rows.filter((j) => j.permitNumber === null && j.statePermits.every((p) => p.permitNumber === null)).length },
    { label: "state permits without an effective date", count: permits.filter((p) => p.effectiveDate === null).length },
    { label: "state permits without an expiry date", count: permits.filter((p) => p.expiryDate === null).length },
    { label: "jurisdictions with no requirement read", count: rows.filter((j) => j.authority === "state" && j.statePermits.every((p) => p.requirements.length === 0)).length },
    { label: "CGP requirement values not held (null)", count: values.filter((v) => v === null).length },
    { label: "requirement values withheld by the rule of caution", count: withheld(ds) },
  ];
}

/** The fifteen largest construction markets (issue 28), whose requirements are read first. */
export const LARGEST_MARKETS = ["TX", "CA", "FL", "GA", "NC", "AZ", "CO", "WA", "VA", "TN", "SC", "OH", "PA", "NY", "UT"] as const;

/** What is held where it matters most: requirements in the largest markets, verified CGP requirements. */
export function heldCounts(ds: Dataset): { label: string; count: number; of: number; codes?: string[] }[] {
  const rows = ds.raw.jurisdictions.jurisdictions;
  const held = LARGEST_MARKETS.filter((code) => {
    const j = rows.find((x) => x.code === code);
    return j !== undefined && (j.authority === "epa" || j.statePermits.some((p) => p.requirements.length > 0));
  });
  // EPA-run jurisdictions carry the CGP's own dates; a state is dated when any of its permits is.
  const dated = rows.filter((j) => j.authority === "epa" || j.statePermits.some((p) => p.effectiveDate !== null || p.expiryDate !== null));
  const cgp = ds.raw.cgpRequirements.requirements;
  return [
    { label: "jurisdictions with a permit date held", count: dated.length, of: rows.length },
    { label: "largest markets with requirements held", count: held.length, of: LARGEST_MARKETS.length, codes: held },
    { label: "CGP requirements verified", count: cgp.filter((q) => q.citation.confidence === "verified").length, of: cgp.length },
  ];
}

/** Values no source states (and document 1 does not fix): served as null, in words only. */
function withheld(ds: Dataset): number {
  const cgp = ds.raw.cgpRequirements.requirements;
  const reqs = [...cgp, ...ds.raw.jurisdictions.jurisdictions.flatMap((j) => j.statePermits.flatMap((p) => p.requirements))];
  let n = 0;
  for (const q of reqs) {
    const fixed = cgp.includes(q) && fixedByDocument1(q.id); // document 1 fixes the federal CGP's values
    if (isWithheld(q.value, q.citation, fixed)) n++;
    for (const c of Object.values(q.cases ?? {})) if (isWithheld(c.value, c.citation ?? q.citation, fixed)) n++;
  }
  return n;
}

export function coverageOf(ds: Dataset): GetCoverageResponse {
  const checked = lastCheckedByGroup(stormwaterFacts(ds.raw));
  const jurisdictions = ds.codes.map((code) => {
    const pj = ds.jurisdictions.get(code)!;
    const j = pj.raw;
    const epa = j.authority === "epa";
    const sp = j.statePermits.length === 1 ? j.statePermits[0] : undefined;
    const cgp = ds.raw.permits.permits.find((p) => p.id === ds.cgp.ref.id)!;
    const reqs = epa ? ds.raw.cgpRequirements.requirements : (sp?.requirements ?? []);
    return create(JurisdictionCoverageSchema, {
      code,
      name: j.name,
      confidence: confidenceOf(j.confidence),
      governingPermitId: j.governingPermitId ?? undefined,
      permitNumber: j.permitNumber ?? undefined,
      effectiveDate: (epa ? cgp.effectiveDate : sp?.effectiveDate) ?? undefined,
      expiryDate: (epa ? cgp.expiryDate : sp?.expiryDate) ?? undefined,
      requirementCount: reqs.length,
      requirements: basisCounts(tallyFacts(reqs)),
      credentialGate: gateOf(j.credential.gate),
      credentialConfidence: confidenceOf(j.credential.confidence),
      // An EPA jurisdiction's answers rest on the federal permit's facts too.
      lastCheckedOn: latest(checked.get(`jurisdiction/${code}`), epa ? checked.get(`permit/${cgp.id}`) : undefined),
    });
  });
  return deepFreeze(create(GetCoverageResponseSchema, {
    datasetVersion: ds.version,
    asOf: ds.asOf,
    facts: basisCounts(tallyFacts(ds.raw)),
    nullFacts: nullFacts(ds).reduce((n, x) => n + x.count, 0),
    jurisdictions,
  }));
}

function latest(...dates: (string | undefined)[]): string | undefined {
  return dates.reduce<string | undefined>((a, d) => (d && (!a || d > a) ? d : a), undefined);
}
