// Assembles a determination: candidates, PCN, verdict, headline, layers, coverage gaps, provenance.
// Pure and deterministic: the same input always gives the same output, in the same order.
import type { CompiledActivity, CompiledDistrict, CompiledState, Dataset } from "./compile.js";
import { evaluateCandidate, pcnTriggers, type Evaluation } from "./evaluate.js";
import { acres, feet, fmt, nwpList } from "./format.js";
import type { DeterminationOut, NormalizedInput, PcnTriggerOut, RawLimit, VerdictId } from "./types.js";
import { basisPhrase, mayRelax } from "@permits/common/basis";
import { longDate } from "@permits/common/dates";

// The rule of caution: "nwp-likely" tells the caller no PCN is needed, so it needs pcn.required
// false, which only terms read in a text that may relax can give. An unknown PCN requirement
// takes the most cautious verdict the facts support: the NWP with a PCN.
function verdictOf(evals: Evaluation[], pcnRequired: boolean | null): VerdictId {
  if (evals.some((e) => e.candidate.eligible === true)) return pcnRequired === false ? "nwp-likely" : "nwp-with-pcn";
  if (evals.some((e) => e.candidate.eligible === false)) return "individual-permit-likely";
  return "insufficient-data";
}

/** Why "no PCN" cannot be said for an eligible candidate, or undefined when it can. */
function pcnUnknownBecause(p: CompiledActivity["permits"][number], e: Evaluation): string | undefined {
  if (p.noPcnUnknownBecause) return p.noPcnUnknownBecause;
  const weak = e.limitsUsed.find((l) => !mayRelax(l));
  return weak ? `the limit it fits (${weak.display}) is ${basisPhrase(weak)}` : undefined;
}

function limitWords(limits: RawLimit[]): string {
  const unverified = limits.some((l) => l.confidence !== "verified");
  return unverified ? "unverified" : "verified";
}

function headline(verdict: VerdictId, evals: Evaluation[], input: NormalizedInput, triggers: PcnTriggerOut[], reviewDays: number, unknownPcn: string[]): string {
  const loss = acres(input.permanentImpactAcres);
  const ok = evals.filter((e) => e.candidate.eligible === true);
  if (verdict === "nwp-likely" || verdict === "nwp-with-pcn") {
    const nums = ok.map((e) => e.candidate.number);
    const limits = ok.flatMap((e) => e.limitsUsed);
    const lims = ok.length === 1 ? `its ${limits.map((l) => l.display.replace(" ", "-")).join(" and ")} ${limits.length === 1 ? "limit" : "limits"}` : "their held limits";
    const basis = limitWords(limits);
    if (verdict === "nwp-likely") {
      return `${nwpList(nums)} likely ${nums.length === 1 ? "applies" : "apply"}: ${loss} of permanent loss is within ${lims} (${basis}), and no held PCN threshold is crossed, though PCN terms, regional conditions and Section 401 certification are not fully screened.`;
    }
    if (triggers.length === 0) {
      return `${nwpList(nums)} likely ${nums.length === 1 ? "applies" : "apply"}, but whether a pre-construction notification is required is unknown (${unknownPcn.join("; ")}), so plan for one (${reviewDays}-day review): ${loss} of permanent loss is within ${lims} (${basis}).`;
    }
    const trigWord = triggers.some((t) => t.confidence !== "verified") ? "unverified" : "verified";
    return `${nwpList(nums)} likely ${nums.length === 1 ? "applies" : "apply"} with a pre-construction notification (${reviewDays}-day review): ${loss} of permanent loss is within ${lims} (${basis}) and a PCN trigger applies (${trigWord}).`;
  }
  if (verdict === "individual-permit-likely") {
    const over = evals.filter((e) => e.candidate.eligible === false);
    const ex = over.flatMap((e) => e.exceeded);
    const what = over.map((e) => `NWP ${e.candidate.number}: ${e.exceeded.map((l) => l.display).join(", ")}`).join("; ");
    const lf = input.streamBedLinearFeet !== undefined && ex.some((l) => l.unit === "linear feet") ? ` or ${feet(input.streamBedLinearFeet)} of stream-bed loss` : "";
    return `An individual permit is likely: ${loss} of permanent loss${lf} exceeds the held limit of every assessable candidate (${what}), and these limits are ${limitWords(ex)}.`;
  }
  const nums = evals.map((e) => e.candidate.number);
  return `Insufficient data: no candidate permit (${nwpList(nums)}) could be assessed for ${loss} of permanent loss in ${input.aquaticResourceType} waters, because no limit is held for it or the data it needs is missing.`;
}

/** `unknownWhy[i]`: why candidate i's PCN requirement is unknown (eligible candidates only). */
function gapsFor(ds: Dataset, input: NormalizedInput, district: CompiledDistrict, state: CompiledState, activity: CompiledActivity, evals: Evaluation[], unknownWhy: (string | undefined)[]): string[] {
  const gaps: string[] = [ds.fixedGaps.jurisdiction, ...district.gaps, ...state.gaps];
  if (district.states.size === 0) {
    gaps.push(`The states served by the ${district.label} are not held, so whether it serves ${state.raw.name} was not checked.`);
  } else if (!district.states.has(input.state)) {
    gaps.push(`The ${district.label} is not recorded in this dataset as serving ${state.raw.name} (${input.state}); recorded: ${[...district.states].join(", ")}. Confirm which district handles the site.`);
  }
  if (state.raw.handlingOffice) gaps.push(`${state.raw.handlingOffice.text} (${state.raw.handlingOffice.sourceUrl})`);

  const t = input.aquaticResourceType;
  for (let i = 0; i < evals.length; i++) {
    const p = activity.permits[i];
    const eligible = evals[i].candidate.eligible;
    const limitGap = p.acreageGapByType[t];
    if (limitGap) gaps.push(limitGap);
    const unknown = unknownWhy[i];
    if (unknown) gaps.push(`The PCN requirement for ${p.label} is unknown: ${unknown}. It is never read as "no PCN"; confirm with the district.`);
    if (eligible !== true) gaps.push(...p.alwaysPcnGaps);
    if (eligible !== false) gaps.push(...p.unscreenedPcnGaps);
    if (p.suspendedGap && p.suspendedStates.has(input.state)) gaps.push(p.suspendedGap);
    const dec = state.raw.decisions;
    if (dec && state.certified) {
      const kind = dec.final ? "final" : "proposed";
      gaps.push(state.certified.has(p.number)
        ? `${state.raw.name}'s ${kind} ${dec.cycle} Section 401 decision certifies NWP ${p.number} subject to its conditions, which are not compiled${p.number === 3 ? ` (${dec.certifiedNote})` : ""} (${dec.sourceUrl}).`
        : `${state.raw.name}'s ${kind} ${dec.cycle} Section 401 decision denies certification for NWP ${p.number}, so individual Section 401 certification is needed (${dec.sourceUrl}).`);
    }
  }
  if (input.streamBedLinearFeet !== undefined) {
    const none = activity.permits.filter((p) => !p.linearByType[t]).map((p) => p.number);
    if (none.length > 0) {
      gaps.push(`No stream-bed linear-foot limit is held for ${nwpList(none)}, so the ${feet(input.streamBedLinearFeet)} given were not compared (the 300-linear-foot limit of the 2017 text was removed from 10 NWPs in 2021 per secondary sources; regional conditions may set one).`);
    }
  }
  if (input.temporaryImpactAcres !== undefined) {
    gaps.push(`Temporary impacts (${acres(input.temporaryImpactAcres)}) are not screened against any limit; only permanent loss is compared.`);
  }
  gaps.push(ds.fixedGaps.generalConditions);
  return gaps;
}

function provenanceFor(ds: Dataset, district: CompiledDistrict, state: CompiledState, evals: Evaluation[], pcnRequired: boolean | null): { label: string; url: string }[] {
  const out = [...ds.baseProvenance];
  const seen = new Set(out.map((p) => p.url));
  const add = (label: string, url: string | undefined) => {
    if (url && !seen.has(url)) {
      seen.add(url);
      out.push({ label, url });
    }
  };
  for (const e of evals) {
    for (const r of e.candidate.reasons) add(`NWP ${e.candidate.number} (${r.code}, ${r.confidence})`, r.sourceUrl);
  }
  if (pcnRequired !== false) add(`PCN review period: ${ds.ruleset.pcnReview.description} (${ds.ruleset.pcnReview.confidence})`, ds.ruleset.pcnReview.sourceUrl);
  add(`${district.label} regulatory page`, district.raw.regulatoryUrl);
  add(`${state.raw.name} Section 401 record (${state.raw.confidence})`, state.raw.sourceUrl);
  if (state.raw.handlingOffice) add(`${state.raw.name}: handling Corps office`, state.raw.handlingOffice.sourceUrl);
  return out;
}

/**
 * Decides a validated input on the evaluation date `today` (yyyy-mm-dd, the service clock's date).
 * Identifiers must already be known (see validateProject).
 */
export function decide(ds: Dataset, input: NormalizedInput, today: string): DeterminationOut {
  const district = ds.districtsByCode.get(input.district)!;
  const state = ds.statesByCode.get(input.state)!;
  const activity = ds.activitiesById.get(input.activity)!;
  const evals = activity.permits.map((p) => evaluateCandidate(p, input, ds.ruleset.sourceUrl));
  const triggers: PcnTriggerOut[] = [];
  const unknownPcn: string[] = [];
  const unknownWhy: (string | undefined)[] = new Array(evals.length);
  let anyEligible = false;
  for (let i = 0; i < evals.length; i++) {
    if (evals[i].candidate.eligible !== true) continue;
    anyEligible = true;
    triggers.push(...pcnTriggers(activity.permits[i], input));
    const why = (unknownWhy[i] = pcnUnknownBecause(activity.permits[i], evals[i]));
    if (why) unknownPcn.push(`NWP ${activity.permits[i].number}: ${why}`);
  }
  // true on any trigger (any basis: cautious); false only where every eligible candidate's terms
  // may relax; null otherwise, and where no candidate is eligible (no NWP path to notify on).
  const pcnRequired = triggers.length > 0 ? true : anyEligible && unknownPcn.length === 0 ? false : null;
  const reviewDays = ds.ruleset.pcnReview.reviewDays;
  const r = ds.ruleset;
  const lapsed = today > r.expiryDate && r.successorId === null;
  const gaps = gapsFor(ds, input, district, state, activity, evals, unknownWhy);
  const late = input.startDate === undefined && input.endDate === undefined
    ? []
    : ([["startDate", input.startDate], ["endDate", input.endDate]] as const).filter(([, v]) => v !== undefined && v > r.expiryDate);
  if (!lapsed && late.length > 0) {
    gaps.unshift(`The project's ${late.map(([k, v]) => `${k} ${v}`).join(" and ")} ${late.length > 1 ? "fall" : "falls"} after the ${r.name} expire on ${longDate(r.expiryDate)}: work not completed by then needs the successor nationwide permits, which this service does not hold; confirm with the district. The verdict is unchanged.`);
  }
  if (lapsed) {
    gaps.unshift(`The ${r.name} expired on ${longDate(r.expiryDate)} and no successor ruleset is held, so no verdict is given from them; confirm with the district which permits now apply.`);
    return {
      verdict: "insufficient-data",
      headline: `Insufficient data: the ${r.name} (${r.federalRegisterCitation}) expired on ${longDate(r.expiryDate)} and no successor ruleset is held by this service, so the project is not screened against them; confirm with the district which permits now apply.`,
      candidates: evals.map((e) => e.candidate),
      pcn: { required: null, reviewDays, triggers: [] },
      districtLayer: district.layer,
      stateLayer: state.layer,
      coverageGaps: gaps,
      provenance: provenanceFor(ds, district, state, evals, null),
    };
  }
  const verdict = verdictOf(evals, pcnRequired);
  return {
    verdict,
    headline: headline(verdict, evals, input, triggers, reviewDays, unknownPcn),
    candidates: evals.map((e) => e.candidate),
    pcn: { required: pcnRequired, reviewDays, triggers },
    districtLayer: district.layer,
    stateLayer: state.layer,
    coverageGaps: gaps,
    provenance: provenanceFor(ds, district, state, evals, pcnRequired),
  };
}

