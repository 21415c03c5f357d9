// Assembles a determination: candidates, PCN, verdict, headline, layers, coverage gaps, provenance.
// Pure and deterministic: the same input always gives the same output, in the same order.
import type { CompiledActivity, CompiledDistrict, CompiledState, Dataset } from "./compile.js";
import { evaluateCandidate, pcnTriggers, type Evaluation } from "./evaluate.js";
import { acres, feet, fmt, nwpList } from "./format.js";
import type { DeterminationOut, NormalizedInput, PcnTriggerOut, RawLimit, VerdictId } from "./types.js";

function verdictOf(evals: Evaluation[], pcnRequired: boolean): VerdictId {
  if (evals.some((e) => e.candidate.eligible === true)) return pcnRequired ? "nwp-with-pcn" : "nwp-likely";
  if (evals.some((e) => e.candidate.eligible === false)) return "individual-permit-likely";
  return "insufficient-data";
}

function limitWords(limits: RawLimit[]): string {
  const unverified = limits.some((l) => l.confidence !== "verified");
  return unverified ? "unverified" : "verified";
}

function headline(verdict: VerdictId, evals: Evaluation[], input: NormalizedInput, triggers: PcnTriggerOut[], reviewDays: number): string {
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

function gapsFor(ds: Dataset, input: NormalizedInput, district: CompiledDistrict, state: CompiledState, activity: CompiledActivity, evals: Evaluation[]): string[] {
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
    if (eligible === true && p.raw.pcnConditions.length === 0) gaps.push(p.pcnNotHeldGap);
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

function provenanceFor(ds: Dataset, district: CompiledDistrict, state: CompiledState, evals: Evaluation[], pcnRequired: boolean): { label: string; url: string }[] {
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
  if (pcnRequired) add(`PCN review period: ${ds.ruleset.pcnReview.description} (${ds.ruleset.pcnReview.confidence})`, ds.ruleset.pcnReview.sourceUrl);
  add(`${district.label} regulatory page`, district.raw.regulatoryUrl);
  add(`${state.raw.name} Section 401 record (${state.raw.confidence})`, state.raw.sourceUrl);
  if (state.raw.handlingOffice) add(`${state.raw.name}: handling Corps office`, state.raw.handlingOffice.sourceUrl);
  return out;
}

/** Decides a validated input. Identifiers must already be known (see validateProject). */
export function decide(ds: Dataset, input: NormalizedInput): DeterminationOut {
  const district = ds.districtsByCode.get(input.district)!;
  const state = ds.statesByCode.get(input.state)!;
  const activity = ds.activitiesById.get(input.activity)!;
  const evals = activity.permits.map((p) => evaluateCandidate(p, input, ds.ruleset.sourceUrl));
  const triggers: PcnTriggerOut[] = [];
  for (let i = 0; i < evals.length; i++) {
    if (evals[i].candidate.eligible === true) triggers.push(...pcnTriggers(activity.permits[i], input));
  }
  const pcnRequired = triggers.length > 0;
  const verdict = verdictOf(evals, pcnRequired);
  const reviewDays = ds.ruleset.pcnReview.reviewDays;
  return {
    verdict,
    headline: headline(verdict, evals, input, triggers, reviewDays),
    candidates: evals.map((e) => e.candidate),
    pcn: { required: pcnRequired, reviewDays, triggers },
    districtLayer: district.layer,
    stateLayer: state.layer,
    coverageGaps: gapsFor(ds, input, district, state, activity, evals),
    provenance: provenanceFor(ds, district, state, evals, pcnRequired),
  };
}

