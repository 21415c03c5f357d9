// Assembles a determination: candidates, PCN, verdict, headline, layers, coverage gaps, provenance.
// Pure and deterministic: the same input always gives the same output, in the same order.
import type { CompiledActivity, CompiledDistrict, CompiledState, Dataset } from "./compile.js";
import { evaluateCandidate, pcnTriggers, type Evaluation } from "./evaluate.js";
import { acres, feet, nwpList } from "./format.js";
import type { Confidence, DeterminationOut, NormalizedInput, PcnTriggerOut, RawLimit, VerdictId } from "./types.js";
import { agree, allVerified, longDate, relaxedOnlyOn } from "@permits/rules";
import { capital, gapTexts, headlineTexts, pcnAssumed, pcnTexts } from "./texts.js";

// The rule of caution: "nwp-likely" tells the caller no PCN is needed, so it needs pcn.required
// false, which only terms that may relax can give (see noPcnUnknownBecause in compile.ts). A
// notification that cannot be ruled out is treated as required: the NWP with a PCN.
function verdictOf(evals: Evaluation[], pcnRequired: boolean): VerdictId {
  if (evals.some((e) => e.candidate.eligible === true)) return pcnRequired === false ? "nwp-likely" : "nwp-with-pcn";
  if (evals.some((e) => e.candidate.eligible === false)) return "individual-permit-likely";
  return "insufficient-data";
}

function limitWords(limits: RawLimit[]): string {
  const unverified = limits.some((l) => l.confidence !== "verified");
  return unverified ? "unverified" : "verified";
}

/** What the PCN screen found for the eligible candidates. */
interface PcnFindings {
  triggers: PcnTriggerOut[];
  /** Candidates (by number) whose only trigger is a PCN treated as required (terms not read). */
  assumed: number[];
  /** For eligible candidates with no trigger whose "no PCN" cannot be said: why a PCN is treated as required. */
  unknown: string[];
}

/**
 * pcn.required and why. Never null: true on a crossed trigger, and wherever a notification cannot
 * be ruled out (see pcnTexts); false only where every fact a "no PCN" rests on may relax.
 * `reasons` are said in these words in pcn.because, the headline and the gaps.
 */
function pcnOutcome(pcn: PcnFindings, anyEligible: boolean, relaxed: boolean): { required: boolean; reasons: string[] } {
  const reasons: string[] = [];
  const read = pcn.triggers.filter((t) => !pcn.assumed.includes(t.permitNumber));
  if (read.length > 0) {
    const numbers = [...new Set(read.map((t) => t.permitNumber))];
    reasons.push(pcnTexts.triggered(numbers, read.some((t) => t.confidence !== "verified") ? "unverified" : "verified"));
  }
  for (const n of pcn.assumed) reasons.push(pcnAssumed(n));
  reasons.push(...pcn.unknown);
  if (!anyEligible) reasons.push(pcnTexts.noCandidateConfirmed);
  else if (reasons.length === 0 && !relaxed) reasons.push(pcnTexts.termsNotConfirmed);
  return reasons.length > 0 ? { required: true, reasons } : { required: false, reasons: [pcnTexts.notRequired] };
}

function verdictSentence(verdict: VerdictId, evals: Evaluation[], input: NormalizedInput, because: string, reviewDays: number): string {
  const loss = acres(input.permanentImpactAcres);
  const ok = evals.filter((e) => e.candidate.eligible === true);
  if (verdict === "nwp-likely" || verdict === "nwp-with-pcn") {
    const nums = ok.map((e) => e.candidate.number);
    const limits = ok.flatMap((e) => e.limitsUsed);
    const lims = ok.length === 1 ? `its ${limits.map((l) => l.display.replace(" ", "-")).join(" and ")} ${agree(limits.length, "limit", "limits")}` : "their held limits";
    const fits = `${loss} of permanent loss is within ${lims} (${limitWords(limits)})`;
    const applies = `${nwpList(nums)} likely ${agree(nums.length, "applies", "apply")}`;
    if (verdict === "nwp-likely") {
      return `${applies}: ${fits}, and no held PCN threshold is crossed, though PCN terms, regional conditions and Section 401 certification are not fully screened.`;
    }
    return `${applies} with a pre-construction notification (${reviewDays}-day review): ${fits}; ${because}.`;
  }
  if (verdict === "individual-permit-likely") {
    const over = evals.filter((e) => e.candidate.eligible === false);
    const ex = over.flatMap((e) => e.exceeded);
    const what = over.map((e) => `NWP ${e.candidate.number}: ${e.exceeded.map((l) => l.display).join(", ")}`).join("; ");
    const lf = input.streamBedLinearFeet !== undefined && ex.some((l) => l.unit === "linear feet") ? ` or ${feet(input.streamBedLinearFeet)} of stream-bed loss` : "";
    return `An individual permit is likely: ${loss} of permanent loss${lf} exceeds the held limit of every assessable candidate (${what}), and ${agree(ex.length, "this limit is", "these limits are")} ${limitWords(ex)}.`;
  }
  return headlineTexts.insufficient(evals.map((e) => e.candidate.number), loss, input.aquaticResourceType, whyUnassessed(evals));
}

/** Why each candidate could not be assessed, grouped: limits not confirmed, limits not held, stream-bed loss. */
function whyUnassessed(evals: Evaluation[]): { unconfirmed: number[]; notHeld: number[]; streamBed: number[] } {
  const out = { unconfirmed: [] as number[], notHeld: [] as number[], streamBed: [] as number[] };
  for (const e of evals) {
    const codes = e.candidate.reasons.map((r) => r.code);
    if (codes.some((c) => c === "limit-unsourced" || c === "limit-not-confirmed")) out.unconfirmed.push(e.candidate.number);
    if (codes.some((c) => c.endsWith("limit-not-held") && !c.startsWith("linear"))) out.notHeld.push(e.candidate.number);
    if (codes.some((c) => c.startsWith("linear-feet") && !c.endsWith("within-limit"))) out.streamBed.push(e.candidate.number);
  }
  return out;
}

/** Every fact a "no PCN" answer rests on: each eligible candidate's notification terms and the limits it fits. */
function noPcnFacts(activity: CompiledActivity, evals: Evaluation[]) {
  return activity.permits.flatMap((p, i) => (evals[i].candidate.eligible === true ? [p.raw.notification, ...p.raw.pcnConditions, ...evals[i].limitsUsed] : []));
}

/** The facts that change what the user must do, for the headline: a district outside the state, 401 denials, suspensions. */
function decisiveFacts(state: CompiledState, district: CompiledDistrict, activity: CompiledActivity, evals: Evaluation[], input: NormalizedInput): string[] {
  const out: string[] = [];
  if (district.states.size > 0 && !district.states.has(input.state)) out.push(headlineTexts.districtNotServing(district.label, state.raw.name));
  const open = activity.permits.filter((_, i) => evals[i].candidate.eligible !== false);
  const dec = state.raw.decisions;
  if (dec && state.certified) {
    const denied = open.filter((p) => !state.certified!.has(p.number)).map((p) => p.number);
    if (denied.length > 0) out.push(headlineTexts.denied(state.raw.name, dec.final ? "final" : "proposed", dec.cycle, denied));
  }
  for (const p of open) if (p.suspendedGap && p.suspendedStates.has(input.state)) out.push(p.suspendedGap);
  return out;
}

/** The headline: the verdict, why a notification is treated as required where no candidate carries it, then each decisive fact. */
function headline(verdict: VerdictId, evals: Evaluation[], input: NormalizedInput, because: string, reviewDays: number, decisive: string[]): string {
  const sentence = verdictSentence(verdict, evals, input, because, reviewDays);
  const pcnSentence = verdict === "nwp-likely" || verdict === "nwp-with-pcn" ? [] : [`${capital(because)}.`];
  return [sentence, ...pcnSentence, ...decisive].join(" ");
}

/** `pcnReasons`: why a notification is required or treated as required, each said as a gap too. */
function gapsFor(ds: Dataset, input: NormalizedInput, district: CompiledDistrict, state: CompiledState, activity: CompiledActivity, evals: Evaluation[], pcnReasons: string[]): string[] {
  const gaps: string[] = [ds.fixedGaps.jurisdiction, ...district.gaps, ...state.gaps];
  if (district.states.size === 0) {
    gaps.push(gapTexts.districtStatesNotHeld(district.label, state.raw.name));
  } else if (!district.states.has(input.state)) {
    gaps.push(gapTexts.districtNotServing(district.label, state.raw.name, input.state, [...district.states]));
  }
  if (state.raw.handlingOffice) gaps.push(`${state.raw.handlingOffice.text} (${state.raw.handlingOffice.sourceUrl})`);

  const t = input.aquaticResourceType;
  for (let i = 0; i < evals.length; i++) {
    const p = activity.permits[i];
    const eligible = evals[i].candidate.eligible;
    const limitGap = p.acreageGapByType[t];
    if (limitGap) gaps.push(limitGap);
    if (eligible !== true) gaps.push(...p.alwaysPcnGaps);
    if (eligible !== false) gaps.push(...p.unscreenedPcnGaps);
    if (p.suspendedGap && p.suspendedStates.has(input.state)) gaps.push(p.suspendedGap);
    const dec = state.raw.decisions;
    if (dec && state.certified) {
      const kind = dec.final ? "final" : "proposed";
      gaps.push(state.certified.has(p.number)
        ? `${state.raw.name}'s ${kind} ${dec.cycle} Section 401 decision certifies NWP ${p.number} subject to its conditions, which are not included here${p.number === 3 ? ` (${dec.certifiedNote})` : ""} (${dec.sourceUrl}).`
        : `${state.raw.name}'s ${kind} ${dec.cycle} Section 401 decision denies certification for NWP ${p.number}, so individual Section 401 certification is needed (${dec.sourceUrl}).`);
    }
  }
  for (const r of pcnReasons) gaps.push(`${capital(r)}.`);
  if (input.streamBedLinearFeet !== undefined) {
    const none = activity.permits.filter((p) => p.linearByType[t].length === 0 && !p.raw.noStreamBedLinearFeetLimit).map((p) => p.number);
    if (none.length > 0) gaps.push(gapTexts.linearNotHeld(none, feet(input.streamBedLinearFeet)));
  }
  if (input.temporaryImpactAcres !== undefined) gaps.push(gapTexts.temporary(input.temporaryImpactAcres));
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
  if (pcnRequired !== false) add(`PCN review period: ${ds.ruleset.pcnReview.description} (${ds.ruleset.pcnReview.confidence})`, ds.ruleset.pcnReview.sourceUrl);
  add(`${district.label} regulatory page`, district.raw.regulatoryUrl);
  add(`${state.raw.name} Section 401 record (${state.raw.confidence})`, state.raw.sourceUrl);
  if (state.raw.handlingOffice) add(`${state.raw.name}: handling Corps office`, state.raw.handlingOffice.sourceUrl);
  return out;
}

/**
 * The answer's overall confidence: verified only when every fact it states is (its reasons, PCN
 * triggers and review period, and the district and state records its layers come from).
 */
function answerConfidence(ds: Dataset, district: CompiledDistrict, state: CompiledState, evals: Evaluation[], triggers: PcnTriggerOut[]): Confidence {
  const s = state.raw;
  const parts = [evals.map((e) => e.candidate.reasons), triggers, ds.ruleset.pcnReview, { confidence: district.raw.confidence }, { confidence: s.confidence }, s.decisions, s.handlingOffice];
  return allVerified(parts) ? "verified" : "unverified";
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
  const pcn: PcnFindings = { triggers: [], assumed: [], unknown: [] };
  let anyEligible = false;
  for (let i = 0; i < evals.length; i++) {
    if (evals[i].candidate.eligible !== true) continue;
    anyEligible = true;
    const p = activity.permits[i];
    const own = pcnTriggers(p, input);
    pcn.triggers.push(...own);
    if (own.length > 0) {
      // A trigger on any basis requires a PCN (cautious); one that rests on no source read says so.
      if (p.pcnAssumed && own.every((t) => t.basis === "unsourced" && t.inputValue === `any NWP ${p.number} activity`)) pcn.assumed.push(p.number);
    } else if (p.pcnNotRuledOut) {
      pcn.unknown.push(p.pcnNotRuledOut);
    }
  }
  const reviewDays = ds.ruleset.pcnReview.reviewDays;
  const r = ds.ruleset;
  const lapsed = today > r.expiryDate && r.successorId === null;
  const outcome = lapsed
    ? { required: true, reasons: [pcnTexts.lapsed] }
    : pcnOutcome(pcn, anyEligible, relaxedOnlyOn(noPcnFacts(activity, evals), true, false));
  const because = outcome.reasons.length === 1 ? outcome.reasons[0] : outcome.reasons.join("; ");
  // A notification that is required, or treated as required, is said as a gap too; "not required" is not a gap.
  const gaps = gapsFor(ds, input, district, state, activity, evals, outcome.required ? outcome.reasons : []);
  const confidence = answerConfidence(ds, district, state, evals, pcn.triggers);
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
      headline: `Insufficient data: the ${r.name} (${r.federalRegisterCitation}) expired on ${longDate(r.expiryDate)} and no successor ruleset is held by this service, so the project is not screened against them; confirm with the district which permits now apply. ${capital(because)}.`,
      confidence,
      candidates: evals.map((e) => e.candidate),
      pcn: { required: true, reviewDays, triggers: [], because },
      districtLayer: district.layer,
      stateLayer: state.layer,
      coverageGaps: gaps,
      provenance: provenanceFor(ds, district, state, evals, true),
    };
  }
  const pcnRequired = outcome.required;
  const verdict = verdictOf(evals, pcnRequired);
  return {
    verdict,
    headline: headline(verdict, evals, input, because, reviewDays, decisiveFacts(state, district, activity, evals, input)),
    confidence,
    candidates: evals.map((e) => e.candidate),
    pcn: { required: pcnRequired, reviewDays, triggers: pcn.triggers, because },
    districtLayer: district.layer,
    stateLayer: state.layer,
    coverageGaps: gaps,
    provenance: provenanceFor(ds, district, state, evals, pcnRequired),
  };
}

