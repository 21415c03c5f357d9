// The date rule, driven by each permit's term as data: has the governing permit expired on the
// evaluation date (and is no successor held), and do the project's own dates run past its expiry?
// Dates are yyyy-mm-dd, so they compare as text.
import { Basis, Confidence, type Citation } from "@permits/proto/common/v1/common";
import type { DerivationStep } from "@permits/proto/stormwater/v1/stormwater";
import { derivedOnce, longDate } from "@permits/rules";
import { step } from "./messages.js";
import type { Dataset, PermitTerm } from "./types.js";
import type { Site } from "./validate.js";

/** Expired on `today` with no successor held. A permit whose expiry is not held is never "expired". */
export function hasLapsed(term: PermitTerm | undefined, today: string): term is PermitTerm & { expiryDate: string } {
  return term !== undefined && term.expiryDate !== null && today > term.expiryDate && !term.hasSuccessor;
}

// What is true of an unverified date on each basis, said beside it: the qualifier follows where the
// date was read, not only its confidence (Utah's expiry was read on the agency's own posted cover).
const UNVERIFIED_DATE: Record<Basis, string> = {
  [Basis.UNSPECIFIED]: "a date not confirmed in any source we could read",
  [Basis.OFFICIAL_TEXT]: "a date read in the agency's own text, not confirmed as final",
  [Basis.AGENCY_FORM]: "a date read in an official agency document, not confirmed as final",
  [Basis.PRIOR_EDITION]: "a date read in an earlier edition",
  [Basis.AGENCY_PAGE]: "a date stated by the agency itself, not read in the permit",
  [Basis.SECONDARY]: "a date reported by a third party, not confirmed in the agency's own text",
  [Basis.UNSOURCED]: "a date not confirmed in any source we could read",
};

/**
 * A permit's expiry date in words. An unverified date says where it was read, so the sentence
 * never claims more than its source.
 */
export function expiryWords(term: PermitTerm, expiryDate: string): string {
  const date = longDate(expiryDate);
  const c = term.expiryCitation;
  return c?.confidence === Confidence.VERIFIED ? date : `${date} (${UNVERIFIED_DATE[c?.basis ?? Basis.UNSOURCED]})`;
}

/**
 * Whether the held permit is still in force cannot be said: its expiry is not held, its agency has
 * proposed a permit to replace it, and no successor is held. Answered as an expired permit is
 * (Arizona's AZG2020-001, whose replacement ADEQ proposed in 2025).
 */
export function mayHaveLapsed(term: PermitTerm | undefined): term is PermitTerm & { replacementProposed: Citation } {
  return term !== undefined && term.expiryDate === null && term.replacementProposed !== undefined && !term.hasSuccessor;
}

/** How the governing permit has lapsed on `today`, if it has or may have. */
export type Lapse = "expired" | "may-have-lapsed" | undefined;

export function lapseOf(term: PermitTerm | undefined, today: string): Lapse {
  return hasLapsed(term, today) ? "expired" : mayHaveLapsed(term) ? "may-have-lapsed" : undefined;
}

/** "<permit> may no longer be in force": built once per permit term. */
export function replacementStep(term: PermitTerm & { replacementProposed: Citation }): DerivationStep {
  return derivedOnce(term, "replacement step", () => step(
    "permit in force",
    `The expiry date of ${term.name} is not held, and ${term.agencyName} has proposed a permit to replace it; no successor permit is held by this service, so whether ${term.name} is still in force is not known.`,
    term.replacementProposed,
  ));
}

/** "<permit> expired on <date>": built once per permit term. */
export function expiryStep(term: PermitTerm & { expiryDate: string }): DerivationStep {
  return derivedOnce(term, "expiry step", () => step(
    "permit expiry",
    `${term.name} expired on ${expiryWords(term, term.expiryDate)}, and no successor permit is held by this service.`,
    term.expiryCitation,
  ));
}

/** What the expiry means for a new operator, by issuer: built once per permit term. */
export function continuationStep(ds: Dataset, term: PermitTerm): DerivationStep {
  return derivedOnce(term, "continuation step", () => term.issuer === "epa"
    ? step(
      "expired permit continuation",
      "An expired EPA general permit continues only for operators already covered who applied on time; a new operator cannot obtain coverage under it. Confirm with EPA whether a successor permit or other relief is available.",
      ds.cgp.citations.continuation,
    )
    : step(
      "expired permit continuation",
      `Whether an expired state general permit continues after its expiry, and for whom, is set by the state; confirm with ${term.agencyName} which permit a new operator is covered under.`,
    ));
}

const NO_FINDINGS = Object.freeze({ steps: Object.freeze([]) as unknown as DerivationStep[], notices: Object.freeze([]) as unknown as string[] });

/**
 * The project's own dates against the governing permit's term: a step (and a notice) where a date
 * falls after the expiry, or where the expiry is not held. Dates never change the verdict.
 */
export function projectDateFindings(term: PermitTerm | undefined, site: Site): { steps: DerivationStep[]; notices: string[] } {
  if (term === undefined || (site.startDate === undefined && site.endDate === undefined)) return NO_FINDINGS;
  const given = ([["startDate", site.startDate], ["endDate", site.endDate]] as const).filter((d): d is readonly ["startDate" | "endDate", string] => d[1] !== undefined);
  if (term.expiryDate === null) {
    return {
      steps: [step("permit term", `The expiry date of ${term.name} is not held, so whether it will still be in force on ${given.map(([k, v]) => `${k} ${v}`).join(" and ")} is unknown; confirm with ${term.agencyName}.`)],
      notices: [],
    };
  }
  const after = given.filter(([, v]) => v > term.expiryDate!);
  if (after.length === 0) return NO_FINDINGS;
  const which = after.map(([k, v]) => `${k} ${v}`).join(" and ");
  const text = `The project's ${which} ${after.length > 1 ? "fall" : "falls"} after ${term.name} expires on ${expiryWords(term, term.expiryDate)}: coverage must continue under its successor permit, which this service does not hold; confirm with ${term.agencyName}. The coverage verdict is unchanged.`;
  return { steps: [step("project dates and permit expiry", text, term.expiryCitation)], notices: [text] };
}
