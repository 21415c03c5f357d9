// Screens one candidate permit against the input: eligibility with reasons, then PCN triggers.
// Every comparison goes through the rule of caution (fitAgainst): a limit on any basis can
// exclude a project, only a limit that may relax can admit one, and a term that is not held
// leaves eligibility unknown.
import { combinedFit, fitAgainst, fitAgainstAny, mayRelax, type Fit } from "@permits/rules";
import type { CompiledPermit } from "./compile.js";
import { acres, feet, fmt } from "./format.js";
import { reasonTexts as T } from "./texts.js";
import type { CandidateOut, Confidence, NormalizedInput, PcnTriggerOut, RawLimit, ReasonOut, ResourceType } from "./types.js";

export interface Evaluation {
  candidate: CandidateOut;
  /** Limits the eligibility answer rests on (for the headline's verified/unverified wording). */
  limitsUsed: RawLimit[];
  exceeded: RawLimit[];
}

function limitReason(code: string, message: string, derivation: string, lim: RawLimit): ReasonOut {
  return { code, message, derivation, sourceUrl: lim.sourceUrl, confidence: lim.confidence, basis: lim.basis, checkedOn: lim.checkedOn };
}

/** One limit against an amount: its reason, and where it is used or exceeded. */
function against(p: CompiledPermit, lim: RawLimit, amount: number, t: ResourceType, reasons: ReasonOut[], used: RawLimit[], exceeded: RawLimit[]): Fit {
  const fit = fitAgainst(amount, lim);
  const acreage = lim.unit === "acres";
  const unit = acreage ? "acres" : "linear feet";
  const derivation = `${fmt(amount)} ${fit === "exceeds" ? ">" : "<="} ${fmt(lim.value)} ${unit} (${lim.display}, ${lim.basis}). ${lim.derivation}`;
  const words = acreage ? `${acres(amount)} of permanent loss` : `${feet(amount)} of stream-bed loss`;
  if (fit === "unknown") {
    // Within a limit that may not relax: it may exclude a project, never admit one.
    const code = `${acreage ? "" : "linear-feet-"}limit-${lim.basis === "unsourced" ? "unsourced" : "not-confirmed"}`;
    reasons.push(limitReason(code, T.withinUnconfirmedLimit(p.number, words, lim), derivation, lim));
    return fit;
  }
  used.push(lim);
  if (fit === "exceeds") exceeded.push(lim);
  const scope = !acreage || lim.appliesTo.length === 4 ? "" : ` for ${t} (${lim.appliesTo.includes("tidal") ? "tidal" : "non-tidal"}) waters`;
  const code = `${acreage ? "acreage" : "linear-feet"}-${fit === "within" ? "within" : "exceeds"}-limit`;
  reasons.push(limitReason(code, fit === "within" ? T.within(p.number, words, lim.display, scope) : T.exceeds(p.number, words, lim.display, scope), derivation, lim));
  return fit;
}

function acreage(p: CompiledPermit, input: NormalizedInput, fallbackUrl: string, reasons: ReasonOut[], used: RawLimit[], exceeded: RawLimit[]): Fit {
  const t = input.aquaticResourceType;
  const limits = p.acreageByType[t];
  const loss = input.permanentImpactAcres;
  if (limits.length === 0) {
    const none = p.raw.acreageLimits.length === 0;
    reasons.push({
      code: none ? "limit-not-held" : "resource-type-limit-not-held",
      message: none ? T.limitNotHeld(p.number, loss) : T.typeLimitNotHeld(p.number, t, loss),
      derivation: none
        ? `permanent loss ${fmt(loss)} acres; NWP ${p.number} limit: not held`
        : `permanent loss ${fmt(loss)} acres (${t}); NWP ${p.number} limits held only for: ${p.raw.acreageLimits.map((l) => `${l.display} (${l.appliesTo.join(", ")})`).join("; ")}`,
      sourceUrl: none ? fallbackUrl : p.raw.acreageLimits[0].sourceUrl,
      confidence: "unverified",
      basis: none ? "unsourced" : p.raw.acreageLimits[0].basis,
      checkedOn: none ? null : p.raw.acreageLimits[0].checkedOn,
    });
    return "unknown";
  }
  return fitAgainstAny(limits.map((lim) => against(p, lim, loss, t, reasons, used, exceeded)));
}

/** Stream-bed loss: compared only when given; a limit that is not held leaves it unknown. */
function linearFeet(p: CompiledPermit, input: NormalizedInput, fallbackUrl: string, reasons: ReasonOut[], used: RawLimit[], exceeded: RawLimit[]): Fit | undefined {
  const t = input.aquaticResourceType;
  const limits = p.linearByType[t];
  const lf = input.streamBedLinearFeet;
  if (lf === undefined) {
    if (limits.length === 0) return undefined; // no stream-bed loss stated and no term to compare it with
    const lim = limits[0];
    reasons.push(limitReason("linear-feet-not-given", T.linearNotGiven(p.number, lim.display), `stream-bed loss: not given; NWP ${p.number} limit ${fmt(lim.value)} linear feet`, lim));
    return "unknown";
  }
  if (limits.length === 0) {
    const none = p.raw.noStreamBedLinearFeetLimit;
    if (none && mayRelax(none)) {
      reasons.push({ code: "no-linear-feet-limit", message: T.noLinearLimit(p.number, feet(lf)), derivation: none.summary, sourceUrl: none.sourceUrl, confidence: none.confidence, basis: none.basis, checkedOn: none.checkedOn });
      return "within";
    }
    reasons.push({
      code: "linear-feet-limit-not-held",
      message: T.linearLimitNotHeld(p.number, feet(lf)),
      derivation: none ? `stream-bed loss ${fmt(lf)} linear feet; "no limit" for NWP ${p.number} is ${none.basis}: ${none.summary}` : `stream-bed loss ${fmt(lf)} linear feet; NWP ${p.number} stream-bed limit: not held`,
      sourceUrl: none?.sourceUrl ?? fallbackUrl,
      confidence: "unverified",
      basis: none?.basis ?? "unsourced",
      checkedOn: none?.checkedOn ?? null,
    });
    return "unknown";
  }
  return fitAgainstAny(limits.map((lim) => against(p, lim, lf, t, reasons, used, exceeded)));
}

export function evaluateCandidate(p: CompiledPermit, input: NormalizedInput, fallbackUrl: string): Evaluation {
  const reasons: ReasonOut[] = [];
  const used: RawLimit[] = [];
  const exceeded: RawLimit[] = [];
  const fits = [acreage(p, input, fallbackUrl, reasons, used, exceeded)];
  const lf = linearFeet(p, input, fallbackUrl, reasons, used, exceeded);
  if (lf !== undefined) fits.push(lf);
  const fit = combinedFit(fits);
  const eligible = fit === "exceeds" ? false : fit === "within" ? true : null;
  return { candidate: { number: p.number, title: p.title, eligible, reasons }, limitsUsed: used, exceeded };
}

/** PCN triggers of an eligible candidate: always-PCN conditions and crossed thresholds (strictly above), on any basis (cautious). */
export function pcnTriggers(p: CompiledPermit, input: NormalizedInput): PcnTriggerOut[] {
  const out: PcnTriggerOut[] = [];
  let always = false;
  for (const c of p.raw.pcnConditions) {
    let hit: { threshold: string; inputValue: string } | undefined;
    if (c.kind === "always") {
      if (always) continue; // one trigger says it, whatever the number of terms
      always = true;
      hit = { threshold: p.alwaysPcnThreshold!, inputValue: `any NWP ${p.number} activity` };
    } else if (c.kind === "acreage-above" && c.threshold !== undefined && input.permanentImpactAcres > c.threshold) {
      hit = { threshold: `permanent loss above ${acres(c.threshold)}: ${c.description}`, inputValue: acres(input.permanentImpactAcres) };
    } else if (c.kind === "linear-feet-above" && c.threshold !== undefined && input.streamBedLinearFeet !== undefined && input.streamBedLinearFeet > c.threshold) {
      hit = { threshold: `stream-bed loss above ${feet(c.threshold)}: ${c.description}`, inputValue: feet(input.streamBedLinearFeet) };
    }
    if (hit) out.push({ permitNumber: p.number, ...hit, sourceUrl: c.sourceUrl, confidence: c.confidence as Confidence, basis: c.basis, checkedOn: c.checkedOn });
  }
  return out;
}
