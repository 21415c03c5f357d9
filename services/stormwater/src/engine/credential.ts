// The preparer/inspector credential gate: whether it applies to a site, and what a generated
// document is (a deliverable, or a draft for a credentialed person).
import { create } from "@bufbuild/protobuf";
import { CredentialResultSchema, CredentialSchema, type Credential, type CredentialResult } from "@permits/proto/stormwater/v1/stormwater";
import { basisOf, relaxedOnlyOn } from "@permits/rules";
import { confidenceOf, gateOf } from "./messages.js";
import type { RawCredential } from "./raw.js";
import type { Dataset } from "./types.js";

export type Applies = boolean | undefined;

export const DOCUMENT_STATUS = {
  deliverable: "deliverable",
  draftForCredentialedPreparer: "draft_for_credentialed_preparer",
  draftForReview: "draft_for_review",
} as const;

/**
 * "Does not apply" relaxes an answer: it stands only where the credential fact may relax (the
 * rule of caution, caution.ts); otherwise the answer is unknown (undefined), never false.
 */
function notApplying(c: RawCredential): Applies {
  return relaxedOnlyOn([c], false, undefined);
}

/** From a determination: the coverage verdict and site facts. Unknown gates never resolve. */
export function appliesForSite(c: RawCredential, coverageRequired: boolean | undefined, acres: number, partOfLargerPlan: boolean): Applies {
  if (c.gate === "unknown") return undefined;
  switch (c.trigger) {
    case "coverage":
      return coverageRequired === false ? notApplying(c) : coverageRequired;
    case "acres":
      if (acres >= (c.minAcres ?? 0)) return true;
      if (c.largerPlanCounts && partOfLargerPlan) return true;
      return c.belowThreshold === false ? notApplying(c) : (c.belowThreshold ?? undefined);
    default:
      // A plan scope or an unresolved trigger: site facts cannot settle it.
      return undefined;
  }
}

/** From a bare acreage (credential lookup): a larger common plan cannot be ruled out below a threshold. */
export function appliesForAcres(c: RawCredential, acres: number | undefined): Applies {
  if (c.gate === "unknown" || acres === undefined) return undefined;
  switch (c.trigger) {
    case "coverage":
      return acres >= 1 ? true : undefined;
    case "acres":
      if (acres >= (c.minAcres ?? 0)) return true;
      return c.largerPlanCounts ? undefined : c.belowThreshold === false ? notApplying(c) : (c.belowThreshold ?? undefined);
    default:
      return undefined;
  }
}

export function documentStatus(c: RawCredential, applies: Applies): string {
  // A deliverable relaxes the answer (no credentialed preparer needed): only on an open gate that may relax.
  if (c.gate === "open" && c.confidence === "verified") return relaxedOnlyOn([c], DOCUMENT_STATUS.deliverable, DOCUMENT_STATUS.draftForReview);
  if ((c.gate === "gated" || c.gate === "conditional") && c.preparer && applies !== false) {
    return DOCUMENT_STATUS.draftForCredentialedPreparer;
  }
  // Unknown or inspector-only rules: never claim a generated document is a filed plan.
  return DOCUMENT_STATUS.draftForReview;
}

/** The gate fields shared by a jurisdiction's Credential and a CredentialResult. */
function gateFields(c: RawCredential, applies: Applies) {
  return {
    gate: gateOf(c.gate),
    appliesToThisSite: applies,
    summary: c.summary,
    routes: c.routes,
    stateCourseRequired: c.stateCourseRequired ?? undefined,
    sourceCitation: c.sourceCitation ?? undefined,
    sourceUrl: c.sourceUrl ?? undefined,
    confidence: confidenceOf(c.confidence),
    basis: basisOf(c.basis),
    checkedOn: c.checkedOn,
  };
}

export function credentialMsg(c: RawCredential, applies: Applies): Credential {
  return create(CredentialSchema, gateFields(c, applies));
}

/** Whether someone credentialed must prepare the plan or inspect, in a contractor's words, by gate. */
const CREDENTIAL_WORDS: Record<RawCredential["gate"], string> = {
  gated: "A certified plan preparer or inspector is required",
  conditional: "A certified plan preparer or inspector is required on some sites",
  open: "No certified plan preparer or inspector is required",
  unknown: "Whether a certified plan preparer or inspector is required is not known",
};

export function credentialSummaryLine(c: RawCredential, applies: Applies): string {
  const a = applies === undefined ? "site facts cannot settle whether it applies" : applies ? "applies to this site" : "does not apply to this site";
  return `${CREDENTIAL_WORDS[c.gate]} (${c.confidence}); ${a}. ${c.summary}`;
}

/** CredentialResult for one state and an optional acreage; the state code is already validated. */
export function credentialResult(ds: Dataset, code: string, acres: number | undefined): CredentialResult {
  const pj = ds.jurisdictions.get(code)!;
  const c = pj.base.credential;
  const applies = appliesForAcres(c, acres);
  return create(CredentialResultSchema, {
    state: code,
    name: pj.raw.name,
    acres,
    ...gateFields(c, applies),
    note: pj.base.note ?? undefined,
    documentStatus: documentStatus(c, applies),
  });
}
