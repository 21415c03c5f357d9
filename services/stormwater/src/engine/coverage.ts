// The coverage verdict: 1 acre or more, or under 1 acre in a larger common plan. Industrial
// activity is never answered here (verify). Where the governing permit has expired on the
// evaluation date and no successor is held (or may have: see mayHaveLapsed), a site that needs
// coverage is answered verify too.
import { deepFreeze, longDate } from "@permits/rules";
import { Coverage, type DerivationStep } from "@permits/proto/stormwater/v1/stormwater";
import { COVERAGE_THRESHOLD_ACRES } from "./contract.js";
import { acres, step } from "./messages.js";
import { STATE_THRESHOLD_NOT_READ } from "./texts.js";
import { continuationStep, expiryStep, expiryWords, hasLapsed, lapseOf, mayHaveLapsed, replacementStep } from "./term.js";
import type { Route, Dataset, PermitTerm } from "./types.js";
import type { Site } from "./validate.js";

export interface CoverageResult {
  coverage: Coverage;
  reason: string;
  /** True / false for construction; undefined for industrial (not determined). */
  required: boolean | undefined;
  steps: DerivationStep[];
}

// Built once and frozen: shared by every answer, so serialised once (see derivedOnce).
const LARGER_PLAN_TRUE = deepFreeze(step("assumption: larger common plan", "partOfLargerPlan is true: the larger common plan is taken to disturb 1 acre or more in total, which makes this site covered. If the whole plan disturbs less than 1 acre, coverage is not required."));
const LARGER_PLAN_UNSTATED = deepFreeze(step("assumption: larger common plan", "partOfLargerPlan was not stated and is read as false (its default). If the site is part of a larger common plan that will ultimately disturb 1 acre or more, coverage is required."));

/** `term` is the governing permit's (undefined where none is identified); `today` the evaluation date. */
export function assessCoverage(ds: Dataset, site: Site, route: Route, term: PermitTerm | undefined, today: string): CoverageResult {
  if (site.activity === "industrial") return industrial(ds, site, route, term, today);
  const cgp = route.governing === "cgp";
  const citation = cgp ? ds.cgp.citations.coverageCgp : ds.cgp.citations.coverageFederal;
  const a = acres(site.acres);
  const steps: DerivationStep[] = [];
  let coverage: Coverage;
  let reason: string;
  // The threshold is document 1's coverage rule (contract.ts): a contract value, not a data fact,
  // so the rule of caution does not gate it; its citation is served at its own confidence.
  if (site.acres >= COVERAGE_THRESHOLD_ACRES) {
    coverage = Coverage.REQUIRED;
    reason = `${a} disturbed is at or above the 1-acre threshold (${site.acres} >= 1), so stormwater permit coverage is required.`;
  } else if (site.partOfLargerPlan) {
    coverage = Coverage.REQUIRED;
    reason = `${a} disturbed is below the 1-acre threshold (${site.acres} < 1), but the site is part of a larger common plan of development or sale, so coverage is required where that plan will ultimately disturb 1 acre or more.`;
    steps.push(LARGER_PLAN_TRUE);
  } else {
    coverage = Coverage.NOT_REQUIRED;
    reason = `${a} disturbed is below the 1-acre threshold (${site.acres} < 1) and the site is not part of a larger common plan of development or sale, so permit coverage is not required.`;
    if (!site.partOfLargerPlanStated) {
      steps.push(LARGER_PLAN_UNSTATED);
    }
  }
  const scope = cgp ? "" : STATE_THRESHOLD_NOT_READ;
  steps.unshift(step("coverage threshold", reason + scope, citation));
  const lapse = lapseOf(term, today);
  if (term === undefined || lapse === undefined) return { coverage, reason, required: coverage === Coverage.REQUIRED, steps };
  if (hasLapsed(term, today)) steps.push(expiryStep(term));
  else if (mayHaveLapsed(term)) steps.push(replacementStep(term));
  if (coverage === Coverage.REQUIRED) {
    // The site needs coverage, but the permit that would give it has (or may have) lapsed: not answered.
    steps.push(continuationStep(ds, term));
    const why = site.acres >= COVERAGE_THRESHOLD_ACRES
      ? `${a} disturbed is at or above the 1-acre threshold (${site.acres} >= 1)`
      : `${a} disturbed is below the 1-acre threshold (${site.acres} < 1), but the site is part of a larger common plan of development or sale`;
    const which = term.expiryDate !== null
      ? `${term.name} expired on ${expiryWords(term, term.expiryDate)}`
      : `whether ${term.name} is still in force is not confirmed (${term.agencyName} has proposed a permit to replace it)`;
    reason = `${why}, so permit coverage is needed; but ${which} and no successor permit is held, so this service will not answer which permit covers the site (verify). Confirm with ${term.agencyName}.`;
    return { coverage: Coverage.VERIFY, reason, required: true, steps };
  }
  // Below the threshold no permit is needed under any edition; the expiry is still said.
  return { coverage, reason, required: false, steps };
}

function industrial(ds: Dataset, site: Site, route: Route, term: PermitTerm | undefined, today: string): CoverageResult {
  const activity = step("activity", `activity is industrial${site.sectorCode ? ` (sector ${site.sectorCode})` : ""}: the construction permit does not apply; coverage is not determined.`);
  if (!term) {
    const federal = ds.msgp.term;
    const msgp = hasLapsed(federal, today)
      ? ` The federal ${federal.name}, which governs only where EPA is the permitting authority, expired on ${longDate(federal.expiryDate)}, and new operators cannot obtain coverage under an expired EPA permit.`
      : "";
    const reason = `Industrial activity: this service does not determine industrial coverage (verify). Which permit governs industrial stormwater in ${route.name} was not confirmed and is not held by this service.${msgp} Confirm with ${route.agencyName}.`;
    return { coverage: Coverage.VERIFY, reason, required: undefined, steps: [activity] };
  }
  const since = term.effectiveDate ? ` took effect on ${longDate(term.effectiveDate)} and` : "";
  if (hasLapsed(term, today)) {
    const reason = `Industrial activity: this service does not determine industrial coverage (verify). ${term.name} expired on ${longDate(term.expiryDate)}, no successor permit is held, and new operators cannot obtain coverage under an expired EPA permit. EPA is the permitting authority here. Confirm with ${route.agencyName}.`;
    return { coverage: Coverage.VERIFY, reason, required: undefined, steps: [activity, step("industrial permit", `${term.name}${since} expired on ${longDate(term.expiryDate)}; no successor is held.`, term.expiryCitation), continuationStep(ds, term)] };
  }
  const until = term.expiryDate ? ` It is in force until ${longDate(term.expiryDate)}.` : " Its expiry date is not held.";
  const reason = `Industrial activity: this service does not determine industrial coverage (verify), and it does not hold the requirements of ${term.name}.${until} EPA is the permitting authority here. Confirm with ${route.agencyName}.`;
  return { coverage: Coverage.VERIFY, reason, required: undefined, steps: [activity, step("industrial permit", `${term.name}${since} is the governing industrial permit.${until}`, term.expiryCitation)] };
}
