// determineStormwater: the pure engine. Validates the site, picks the route (tribal, federal
// facility, EPA area or state programme), then assembles prepared parts. No clock and no I/O:
// the evaluation date is an argument (the service passes its clock's date).
import { create } from "@bufbuild/protobuf";
import { derivedOnce, overallConfidence } from "@permits/rules";
import { Confidence } from "@permits/proto/common/v1/common";
import {
  DeterminationSchema,
  RequirementsResultSchema,
  type Determination,
  type DerivationStep,
  type EligibilityScreen,
  type PermitRef,
  type Requirement,
  type RequirementsResult,
  type SiteInput,
} from "@permits/proto/stormwater/v1/stormwater";
import { governingPermit, selectRoute, type Governing } from "./authority.js";
import { assessCoverage } from "./coverage.js";
import { appliesForSite } from "./credential.js";
import { step } from "./messages.js";
import { acreRangeText, cgpAttachesText, noPermitForSizeText, partlyReadPermitText } from "./texts.js";
import {
  FIXED_NOTICES,
  industrialNotice,
  lapsedNotice,
  partialStateNotice,
  notIdentifiedNotice,
  notRequiredNotice,
  stateNotReadNotice,
  unverifiedNotice,
  UNVERIFIED_REQUIREMENTS_NOTICE,
} from "./notices.js";
import { assembleCgp } from "./requirements.js";
import { lapseOf, projectDateFindings, type Lapse } from "./term.js";
import type { Dataset, PreparedJurisdiction, PreparedStatePermit, Route } from "./types.js";
import { echoInput, normalizeSite, type Site } from "./validate.js";

const NO_PERMIT = Object.freeze({ confidence: Confidence.UNVERIFIED });

/** `today` is the evaluation date (yyyy-mm-dd): the service clock's date. */
export function determineStormwater(ds: Dataset, input: SiteInput | undefined, today: string): Determination {
  const site = normalizeSite(ds, input);
  const pj = ds.jurisdictions.get(site.state)!;
  const route = selectRoute(pj, site);
  const governing = governingPermit(ds, route, site);
  const cov = assessCoverage(ds, site, route, governing?.term, today);

  const derivation = [...cov.steps, route.authorityStep, ...route.extraSteps];
  if (site.federalFacility && route.kind !== "federal-facility" && route.kind !== "tribal") derivation.push(ds.cgp.lefjStep);

  let requirements: Requirement[] = [];
  let screens: EligibilityScreen[] = [];
  const lapse = site.activity === "construction" ? lapseOf(governing?.term, today) : undefined;
  const lapsed = lapse !== undefined;
  // The governing state permit's requirements that apply to a site of this size.
  const stateList = governing?.state?.requirementsFor(site.acres) ?? [];
  const outcome = governingOutcome(ds, pj, route, site.activity, cov.required, governing, lapse, stateList.length);
  if (outcome.cgpApplies) {
    const a = assembleCgp(ds, site);
    requirements = a.requirements;
    screens = a.screens;
    derivation.push(cgpGoverningStep(ds, requirements), ...a.steps);
  } else {
    derivation.push(outcome.step);
    if (outcome.stateApplies) requirements = stateList;
  }
  const dates = lapsed ? { steps: [], notices: [] } : projectDateFindings(governing?.term, site);
  derivation.push(...dates.steps);
  const notices = dates.notices.length > 0 ? [...outcome.notices, ...dates.notices] : outcome.notices;

  const applies = appliesForSite(route.credential, cov.required, site.acres, site.partOfLargerPlan);
  const key = applies === undefined ? "unknown" : applies ? "yes" : "no";
  derivation.push(route.credentialStep[key]);

  const jurisdiction = (numberedBy(route, governing)?.jurisdiction ?? route.jurisdiction)[key];
  const permit = governing?.ref;
  // Overall confidence: verified only when every citation of the answer is (caution.ts). A
  // governing permit that was not identified is not a fact the answer can rest on.
  // The steps come first: the walk stops at the first unverified citation, usually the threshold's.
  const confidence = overallConfidence([derivation, requirements, screens, jurisdiction, permit ?? NO_PERMIT]);

  return create(DeterminationSchema, {
    coverage: cov.coverage,
    coverageReason: cov.reason,
    permit,
    jurisdiction,
    eligibilityScreens: screens,
    requirements,
    derivation,
    notices,
    confidence,
    datasetVersion: ds.version,
    input: echoInput(site),
  });
}

/** The "governing permit" step where the read CGP's requirements attach: how many of them are verified, built once per count. */
function cgpGoverningStep(ds: Dataset, requirements: Requirement[]): DerivationStep {
  const verified = requirements.filter((q) => q.citation?.confidence === Confidence.VERIFIED).length;
  return derivedOnce(ds.cgp, `governing step ${verified}/${requirements.length}`, () =>
    step("governing permit", cgpAttachesText(ds.cgp.ref.name, ds.cgp.ref.version, verified, requirements.length)));
}

/**
 * The state permit whose number the jurisdiction carries where its row names none: the governing
 * one, or on an unverified row the one permit held for its number alone (Arkansas's ARR150000).
 */
function numberedBy(route: Route, governing: Governing | undefined): PreparedStatePermit | undefined {
  if (route.kind !== "state") return undefined;
  return governing?.state ?? (route.governing === "none" && route.statePermits.length === 1 ? route.statePermits[0] : undefined);
}

interface GoverningOutcome {
  /** The "governing permit" derivation step (where the CGP's requirements attach, cgpGoverningStep gives it). */
  step: DerivationStep;
  /** True where the read CGP governs and coverage is required: its requirements attach. */
  cgpApplies: boolean;
  /** True where a state permit with requirements read governs and coverage is required. */
  stateApplies: boolean;
  notices: string[]; // frozen, like every derivedOnce part
}

/**
 * Which permit governs and what the caller is told about it. It turns only on the route, the
 * activity, whether coverage is required and which of the route's permits applies, so each
 * combination is built once and shared (see derivedOnce).
 */
function governingOutcome(ds: Dataset, pj: PreparedJurisdiction, route: Route, activity: Site["activity"], required: boolean | undefined, governing: Governing | undefined, lapse: Lapse, applicable: number): GoverningOutcome {
  const permit = governing?.ref;
  const permitIndex = route.statePermits.findIndex((p) => p.ref === permit);
  return derivedOnce(route, `${activity}|${required}|${permitIndex}|${lapse}|${applicable}`, () => {
    const notices = [...FIXED_NOTICES];
    const agency = route.agencyName;
    let text: string;
    let cgpApplies = false;
    let stateApplies = false;
    if (activity === "industrial") {
      text = route.governing === "cgp"
        ? `${ds.msgp.ref.name} (${ds.msgp.ref.version}); its requirements are not held.`
        : `The industrial stormwater permit for ${route.name} was not identified or read by this service.`;
      notices.push(industrialNotice(agency));
    } else if (lapse && required) {
      const status = lapse === "expired" ? "has expired" : "may no longer be in force (a permit to replace it was proposed)";
      text = `${permit!.name} (${permit!.version}) ${status} and no successor is held, so no requirements are listed.`;
      notices.push(lapsedNotice(permit!.name, agency, status));
    } else if (route.governing === "cgp") {
      if (required) {
        cgpApplies = true;
        text = "";
        if (ds.cgp.anyUnverifiedRequirement) notices.push(UNVERIFIED_REQUIREMENTS_NOTICE);
      } else {
        text = `${ds.cgp.ref.name}, ${ds.cgp.ref.version}. Coverage is not required, so its requirements do not attach.`;
        notices.push(notRequiredNotice(agency));
      }
    } else if (route.governing === "state") {
      const read = governing?.state?.requirements.length ?? 0;
      stateApplies = read > 0 && required === true;
      text = !permit
        ? noPermitForSizeText(route.name, route.statePermits.map((p) => ({ name: p.ref.name, range: acreRangeText(p.raw.minAcres, p.raw.maxAcresExclusive) })))
        : read > 0
          ? partlyReadPermitText(permit.name, permit.version, read, stateApplies, applicable)
          : `${permit.name} (${permit.version}). Identified but not read by this service, so no requirements are listed and no other permit's numbers are substituted.`;
      if (!required) notices.push(notRequiredNotice(agency));
      else if (!permit) notices.push(notIdentifiedNotice(`a site of this size in ${route.name}`, agency));
      else notices.push(stateApplies ? partialStateNotice(permit.name, agency) : stateNotReadNotice(permit.name, agency));
    } else {
      text = `The current construction permit for ${route.name} is not verified at an official source; no requirements are listed.`;
      notices.push(required ? notIdentifiedNotice(route.name, agency) : notRequiredNotice(agency));
    }
    if (route.confidence !== Confidence.VERIFIED) notices.push(unverifiedNotice(route.name, route.note));
    return { step: step("governing permit", text), cgpApplies, stateApplies, notices };
  });
}

/** The same engine projected to requirements (GET /api/v1/requirements). */
export function requirementsFromDetermination(d: Determination): RequirementsResult {
  return create(RequirementsResultSchema, {
    site: d.input,
    coverage: d.coverage,
    coverageReason: d.coverageReason,
    permit: d.permit,
    requirements: d.requirements,
    requirementCount: d.requirements.length,
    eligibilityScreens: d.eligibilityScreens,
    notices: d.notices,
    confidence: d.confidence,
    datasetVersion: d.datasetVersion,
  });
}

export function requirementsForSite(ds: Dataset, input: SiteInput | undefined, today: string): RequirementsResult {
  return requirementsFromDetermination(determineStormwater(ds, input, today));
}
