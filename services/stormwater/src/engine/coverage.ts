// The coverage verdict: 1 acre or more, or under 1 acre in a larger common plan. Industrial
// activity is never answered here (verify): the federal MSGP expired on 28 February 2026.
import { deepFreeze } from "@permits/common/freeze";
import { Coverage, type DerivationStep } from "@permits/proto/stormwater/v1/stormwater";
import { acres, step } from "./messages.js";
import type { Route, Dataset } from "./types.js";
import type { Site } from "./validate.js";

export interface CoverageResult {
  coverage: Coverage;
  reason: string;
  /** True / false for construction; undefined for industrial (not determined). */
  required: boolean | undefined;
  steps: DerivationStep[];
}

export const MSGP_EXPIRY_TEXT =
  "EPA's 2021 Multi-Sector General Permit (MSGP) expired on 28 February 2026, and new operators cannot currently obtain coverage under it";

// Built once and frozen: shared by every answer, so serialised once (see derivedOnce).
const LARGER_PLAN_TRUE = deepFreeze(step("assumption: larger common plan", "partOfLargerPlan is true: the larger common plan is taken to disturb 1 acre or more in total, which makes this site covered. If the whole plan disturbs less than 1 acre, coverage is not required."));
const LARGER_PLAN_UNSTATED = deepFreeze(step("assumption: larger common plan", "partOfLargerPlan was not stated and is read as false (its default). If the site is part of a larger common plan that will ultimately disturb 1 acre or more, coverage is required."));

export function assessCoverage(ds: Dataset, site: Site, route: Route): CoverageResult {
  if (site.activity === "industrial") return industrial(ds, site, route);
  const cgp = route.governing === "cgp";
  const citation = cgp ? ds.cgp.citations.coverageCgp : ds.cgp.citations.coverageFederal;
  const a = acres(site.acres);
  const steps: DerivationStep[] = [];
  let coverage: Coverage;
  let reason: string;
  if (site.acres >= 1) {
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
  const scope = cgp ? "" : " This is the federal floor (40 CFR 122.26); the state permit was not read and may reach further.";
  steps.unshift(step("coverage threshold", reason + scope, citation));
  return { coverage, reason, required: coverage === Coverage.REQUIRED, steps };
}

function industrial(ds: Dataset, site: Site, route: Route): CoverageResult {
  const where = route.governing === "cgp"
    ? "EPA is the permitting authority here."
    : `Which permit governs industrial stormwater in ${route.name} was not confirmed and is not held by this service.`;
  const reason = `Industrial activity: this service does not determine industrial coverage (verify). ${MSGP_EXPIRY_TEXT}. ${where} Confirm with ${route.agencyName}.`;
  const steps = [
    step("activity", `activity is industrial${site.sectorCode ? ` (sector ${site.sectorCode})` : ""}: the construction permit does not apply; coverage is not determined.`),
    step(
      "industrial permit",
      `EPA's 2021 MSGP took effect on 1 March 2021 and expired on 28 February 2026 (Federal Register, FR Doc. 2024-29402, read on a non-government copy). Whether a 2026 MSGP has taken effect was not confirmed.`,
      ds.cgp.citations.msgpEffective,
    ),
    step(
      "expired permit continuation",
      "An expired EPA permit continues only for permittees who already held it and applied on time, so a new operator cannot obtain coverage under the expired 2021 MSGP.",
      ds.cgp.citations.continuation,
    ),
  ];
  return { coverage: Coverage.VERIFY, reason, required: undefined, steps };
}
