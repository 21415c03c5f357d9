// Screens one candidate permit against the input: eligibility with reasons, then PCN triggers.
import type { CompiledPermit } from "./compile.js";
import { acres, feet, fmt } from "./format.js";
import type { CandidateOut, Confidence, NormalizedInput, PcnTriggerOut, RawLimit, ReasonOut } from "./types.js";

export interface Evaluation {
  candidate: CandidateOut;
  /** Limits the eligibility answer rests on (for the headline's verified/unverified wording). */
  limitsUsed: RawLimit[];
  exceeded: RawLimit[];
}

type Outcome = "within" | "exceeds" | "unknown";

function acreage(p: CompiledPermit, input: NormalizedInput, fallbackUrl: string, reasons: ReasonOut[], used: RawLimit[], exceeded: RawLimit[]): Outcome {
  const t = input.aquaticResourceType;
  const lim = p.acreageByType[t];
  const loss = input.permanentImpactAcres;
  if (!lim) {
    const none = p.raw.acreageLimits.length === 0;
    reasons.push({
      code: none ? "limit-not-held" : "resource-type-limit-not-held",
      message: none
        ? `No acreage limit for NWP ${p.number} is held, so the ${acres(loss)} of permanent loss was not compared.`
        : `The acreage limit held for NWP ${p.number} does not cover ${t} waters, so the ${acres(loss)} of permanent loss was not compared.`,
      derivation: none
        ? `permanent loss ${fmt(loss)} acres; NWP ${p.number} limit: not held`
        : `permanent loss ${fmt(loss)} acres (${t}); NWP ${p.number} limits held only for: ${p.raw.acreageLimits.map((l) => `${l.display} (${l.appliesTo.join(", ")})`).join("; ")}`,
      sourceUrl: none ? fallbackUrl : p.raw.acreageLimits[0].sourceUrl,
      confidence: "unverified",
      basis: none ? "unsourced" : p.raw.acreageLimits[0].basis,
    });
    return "unknown";
  }
  const within = loss <= lim.value;
  if (within && lim.basis === "unsourced") {
    // A limit no source states may exclude a project (cautious), never admit one.
    reasons.push({
      code: "limit-unsourced",
      message: `${acres(loss)} of permanent loss is within the ${lim.display} limit believed for NWP ${p.number}, but no source for that limit was read, so eligibility is not assessed.`,
      derivation: `${fmt(loss)} <= ${fmt(lim.value)} acres (${lim.display}, unsourced). ${lim.derivation}`,
      sourceUrl: lim.sourceUrl,
      confidence: "unverified",
      basis: lim.basis,
    });
    return "unknown";
  }
  used.push(lim);
  if (!within) exceeded.push(lim);
  const scope = lim.appliesTo.length === 4 ? "" : ` for ${t} (${lim.appliesTo.includes("tidal") ? "tidal" : "non-tidal"}) waters`;
  reasons.push({
    code: within ? "acreage-within-limit" : "acreage-exceeds-limit",
    message: within
      ? `${acres(loss)} of permanent loss is within the NWP ${p.number} limit of ${lim.display}${scope}.`
      : `${acres(loss)} of permanent loss exceeds the NWP ${p.number} limit of ${lim.display}${scope}.`,
    derivation: `${fmt(loss)} ${within ? "<=" : ">"} ${fmt(lim.value)} acres (${lim.display}). ${lim.derivation}`,
    sourceUrl: lim.sourceUrl,
    confidence: lim.confidence,
    basis: lim.basis,
  });
  return within ? "within" : "exceeds";
}

function linearFeet(p: CompiledPermit, input: NormalizedInput, reasons: ReasonOut[], used: RawLimit[], exceeded: RawLimit[]): Outcome {
  const lim = p.linearByType[input.aquaticResourceType];
  const lf = input.streamBedLinearFeet;
  if (!lim) return "within"; // no held linear-foot limit for this resource type: nothing to compare
  if (lf === undefined) {
    reasons.push({
      code: "linear-feet-not-given",
      message: `NWP ${p.number} has a stream-bed limit of ${lim.display}, but streamBedLinearFeet was not given.`,
      derivation: `stream-bed loss: not given; NWP ${p.number} limit ${fmt(lim.value)} linear feet`,
      sourceUrl: lim.sourceUrl,
      confidence: lim.confidence,
      basis: lim.basis,
    });
    return "unknown";
  }
  used.push(lim);
  const within = lf <= lim.value;
  if (!within) exceeded.push(lim);
  reasons.push({
    code: within ? "linear-feet-within-limit" : "linear-feet-exceeds-limit",
    message: within
      ? `${feet(lf)} of stream-bed loss is within the NWP ${p.number} limit of ${lim.display}.`
      : `${feet(lf)} of stream-bed loss exceeds the NWP ${p.number} limit of ${lim.display}.`,
    derivation: `${fmt(lf)} ${within ? "<=" : ">"} ${fmt(lim.value)} linear feet (${lim.display}). ${lim.derivation}`,
    sourceUrl: lim.sourceUrl,
    confidence: lim.confidence,
    basis: lim.basis,
  });
  return within ? "within" : "exceeds";
}

export function evaluateCandidate(p: CompiledPermit, input: NormalizedInput, fallbackUrl: string): Evaluation {
  const reasons: ReasonOut[] = [];
  const used: RawLimit[] = [];
  const exceeded: RawLimit[] = [];
  const a = acreage(p, input, fallbackUrl, reasons, used, exceeded);
  const l = linearFeet(p, input, reasons, used, exceeded);
  const eligible = a === "exceeds" || l === "exceeds" ? false : a === "unknown" || l === "unknown" ? null : true;
  return { candidate: { number: p.number, title: p.title, eligible, reasons }, limitsUsed: used, exceeded };
}

/** PCN triggers of an eligible candidate: always-PCN conditions and crossed thresholds (strictly above). */
export function pcnTriggers(p: CompiledPermit, input: NormalizedInput): PcnTriggerOut[] {
  const out: PcnTriggerOut[] = [];
  for (const c of p.raw.pcnConditions) {
    let hit: { threshold: string; inputValue: string } | undefined;
    if (c.kind === "always") {
      hit = { threshold: `always: ${c.description}`, inputValue: `any NWP ${p.number} activity` };
    } else if (c.kind === "acreage-above" && c.threshold !== undefined && input.permanentImpactAcres > c.threshold) {
      hit = { threshold: `permanent loss above ${acres(c.threshold)}: ${c.description}`, inputValue: acres(input.permanentImpactAcres) };
    } else if (c.kind === "linear-feet-above" && c.threshold !== undefined && input.streamBedLinearFeet !== undefined && input.streamBedLinearFeet > c.threshold) {
      hit = { threshold: `stream-bed loss above ${feet(c.threshold)}: ${c.description}`, inputValue: feet(input.streamBedLinearFeet) };
    }
    if (hit) out.push({ permitNumber: p.number, ...hit, sourceUrl: c.sourceUrl, confidence: c.confidence as Confidence, basis: c.basis });
  }
  return out;
}
