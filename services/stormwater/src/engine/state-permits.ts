// A state permit as an answer uses it: its reference (no more than the weakest of its identity,
// dates and number), its term, its requirements by size class, and the jurisdiction served where
// it governs and the row names no number.
import { weakerBasis } from "@permits/rules";
import { Confidence } from "@permits/proto/common/v1/common";
import type { PermitRef } from "@permits/proto/stormwater/v1/stormwater";
import { coversAcres } from "./authority.js";
import { citationMsg, confidenceOf, fixedRequirement, permitRefOf } from "./messages.js";
import type { RawBasis, RawCitation, RawJurisdiction, RawStatePermit } from "./raw.js";
import { acreRangeText, STATE_STABILIZATION_GOVERNS } from "./texts.js";
import type { JurisdictionFields, PreparedStatePermit, Route } from "./types.js";

export function prepareStatePermit(j: RawJurisdiction, p: RawStatePermit, row: JurisdictionFields, variants: (f: JurisdictionFields) => Route["jurisdiction"]): PreparedStatePermit {
  return {
    raw: p,
    ref: permitRefOf(p, { authority: j.agencyShort, agencyName: j.agencyName, agencyUrl: j.agencyUrl }, ...referenceGrounds(j, p)),
    term: {
      name: p.name,
      effectiveDate: p.effectiveDate,
      expiryDate: p.expiryDate,
      hasSuccessor: false,
      issuer: "state",
      agencyName: j.agencyName,
      expiryCitation: p.datesCitation ? citationMsg(p.datesCitation) : undefined,
      replacementProposed: p.replacementProposed ? citationMsg(p.replacementProposed) : undefined,
    },
    ...stateRequirements(p, j.agencyName),
    jurisdiction: numberedJurisdiction(j, p, row, variants),
  };
}

/**
 * What a state permit's reference rests on: its identity (the row's citation) and, where they have
 * their own citations, its dates and its number. The reference claims no more than the weakest.
 */
function referenceGrounds(j: RawJurisdiction, p: RawStatePermit): [PermitRef["confidence"], RawBasis] {
  const own = [p.datesCitation, p.numberCitation].filter((c): c is RawCitation => c != null);
  const verified = j.confidence === "verified" && own.every((c) => c.confidence === "verified");
  return [confidenceOf(verified ? "verified" : "unverified"), own.reduce((b, c) => weakerBasis(b, c.basis), j.basis)];
}

/**
 * Where a jurisdiction's row names no permit number but its state permit holds one (OH, IN, LA),
 * the jurisdiction served with that permit carries it, at no more than the number's own grounds.
 */
function numberedJurisdiction(j: RawJurisdiction, p: RawStatePermit, row: JurisdictionFields, variants: (f: JurisdictionFields) => Route["jurisdiction"]): Route["jurisdiction"] | undefined {
  if (j.permitNumber !== null || p.permitNumber === null) return undefined;
  const c = p.numberCitation;
  const f: JurisdictionFields = {
    ...row,
    permitNumber: p.permitNumber,
    confidence: c && c.confidence !== "verified" ? Confidence.UNVERIFIED : row.confidence,
    basis: c ? weakerBasis(row.basis, c.basis) : row.basis,
  };
  return variants(f);
}

/**
 * A state permit's requirements, and those of them that apply to a site of a given size: some are
 * set only for small or large sites (TXR150000's Notice of Intent, 5 acres or more). One list per
 * size class, built here: between two consecutive bounds every requirement applies or does not.
 */
function stateRequirements(p: RawStatePermit, agency: string): Pick<PreparedStatePermit, "requirements" | "requirementsFor"> {
  const requirements = p.requirements.map((q) => {
    const sized = q.minAcres !== undefined || q.maxAcresExclusive !== undefined;
    const because = q.because ?? `Applies because coverage under ${p.name} is required for this site${sized ? ` and the permit sets it for sites of ${acreRangeText(q.minAcres, q.maxAcresExclusive)}` : ""}.`;
    // The state's own stabilization rule governs, whatever document 1's federal 5-acre rule says.
    return fixedRequirement({ ...q, because: q.kind === "stabilization" ? `${because} ${STATE_STABILIZATION_GOVERNS}` : because }, because, agency);
  });
  const bounds = [...new Set(p.requirements.flatMap((q) => [q.minAcres, q.maxAcresExclusive]).filter((b): b is number => b !== undefined))].sort((a, b) => a - b);
  if (bounds.length === 0) return { requirements, requirementsFor: () => requirements };
  const byClass = [0, ...bounds].map((low) => requirements.filter((_, i) => coversAcres(p.requirements[i], low)));
  return {
    requirements,
    requirementsFor: (acres) => {
      let k = 0;
      while (k < bounds.length && acres >= bounds[k]) k++;
      return byClass[k];
    },
  };
}

