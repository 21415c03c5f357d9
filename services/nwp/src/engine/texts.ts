// Every sentence the nwp engine writes, once, as a template: reasons, gaps and the headline's
// parts. Plain words for the person reading the answer; counts agree with their nouns.
import { agree, basisPhrase, notConfirmed } from "@permits/rules";
import { acres, nwpList } from "./format.js";
import type { RawLimit, ResourceType } from "./types.js";

const DISTRICT = "the Corps district";

export const reasonTexts = {
  limitNotHeld: (n: number, loss: number) => `No acreage limit for NWP ${n} is held, so the ${acres(loss)} of permanent loss was not compared.`,
  typeLimitNotHeld: (n: number, t: ResourceType, loss: number) =>
    `The acreage limit held for NWP ${n} does not cover ${t} waters, so the ${acres(loss)} of permanent loss was not compared.`,
  /** Within a limit that may not admit a project: unsourced, a third party's, or an earlier edition's. */
  withinUnconfirmedLimit: (n: number, amount: string, lim: RawLimit) =>
    lim.basis === "unsourced"
      ? `${amount} is within the ${lim.display} limit thought to apply to NWP ${n}, but that limit was ${notConfirmed(DISTRICT)}. Eligibility is not assessed.`
      : `${amount} is within the ${lim.display} limit of NWP ${n} ${basisPhrase(lim)}, which is not the 2026 permit text, so eligibility is not assessed; confirm with ${DISTRICT}.`,
  within: (n: number, amount: string, display: string, scope: string) => `${amount} is within the NWP ${n} limit of ${display}${scope}.`,
  exceeds: (n: number, amount: string, display: string, scope: string) => `${amount} exceeds the NWP ${n} limit of ${display}${scope}.`,
  linearNotGiven: (n: number, display: string) => `NWP ${n} has a stream-bed limit of ${display}, but the stream-bed loss in linear feet was not given.`,
  linearLimitNotHeld: (n: number, lf: string) =>
    `No stream-bed limit in linear feet is held for NWP ${n}, so whether ${lf} of stream-bed loss fits it is unknown; confirm with ${DISTRICT}.`,
  noLinearLimit: (n: number, lf: string) => `NWP ${n} sets no stream-bed limit in linear feet, so the ${lf} of stream-bed loss does not exclude it.`,
};

/**
 * Why a notification is treated as required where none can be ruled out under the rule of caution:
 * one template, said in the same words in `pcn.because`, the headline and the coverage gaps.
 * `n`: the permit it is about, or undefined where it is about the project as a whole.
 */
export function pcnTreatedAsRequired(n: number | undefined, why: string): string {
  return `a pre-construction notification is treated as required${n === undefined ? "" : ` for NWP ${n}`} because ${why}`;
}

const assumedSaid = new Map<number, string>();

/** A PCN treated as required because the permit's notification terms were not read (built once per permit). */
export function pcnAssumed(n: number): string {
  let said = assumedSaid.get(n);
  if (said === undefined) assumedSaid.set(n, (said = pcnTreatedAsRequired(n, `its notification terms were ${notConfirmed(DISTRICT)}`)));
  return said;
}

export const pcnTexts = {
  /** An eligible candidate with no trigger whose "no PCN" cannot be said (see noPcnUnknownBecause). */
  notRuledOut: (n: number, why: string) => pcnTreatedAsRequired(n, `${why}, so one cannot be ruled out; confirm with ${DISTRICT}`),
  /** No candidate is eligible: there is no held term that could rule a notification out. */
  noCandidateConfirmed: pcnTreatedAsRequired(undefined, `no candidate nationwide permit was confirmed for this project, so one cannot be ruled out; confirm with ${DISTRICT}`),
  /** The ruleset has lapsed and no successor is held. */
  lapsed: pcnTreatedAsRequired(undefined, `the nationwide permits this service holds have expired and no successor is held, so one cannot be ruled out; confirm with ${DISTRICT}`),
  /** Read (or held) triggers are crossed. */
  triggered: (numbers: number[], confidence: "verified" | "unverified") =>
    `a pre-construction notification is required because a notification threshold of ${nwpList(numbers)} is crossed (${confidence})`,
  /** Every eligible candidate's notification terms may relax, but a limit it fits may not. */
  termsNotConfirmed: pcnTreatedAsRequired(undefined, `a term the answer rests on was not confirmed in the permit text, so one cannot be ruled out; confirm with ${DISTRICT}`),
  notRequired: "no pre-construction notification is required: the notification terms of every eligible candidate were read and none is crossed",
};

export function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

export const gapTexts = {
  pcnAssumedIfApplies: (n: number) => `If NWP ${n} applies, ${pcnAssumed(n)}.`,
  alwaysIfApplies: (label: string, description: string) => `If ${label} applies: ${description}`,
  linearNotHeld: (numbers: number[], lf: string) =>
    `No stream-bed limit in linear feet is held for ${nwpList(numbers)}, so the ${lf} given ${agree(numbers.length, "leaves its", "leave their")} eligibility unknown (the 300-linear-foot limit of the 2017 text was removed from 10 NWPs in 2021, according to secondary sources; regional conditions may set one).`,
  temporary: (a: number) => `Temporary impacts (${acres(a)}) are not screened against any limit; only permanent loss is compared.`,
  districtNotServing: (district: string, state: string, code: string, recorded: string[]) =>
    `The ${district} is not on record here as serving ${state} (${code}); recorded: ${recorded.join(", ")}. Confirm which district handles the site.`,
  /** A state whose Section 401 decision (which NWPs it certifies, which it denies) is held and applied. */
  decisionHeld: (state: string, kind: string, cycle: string, who: string) =>
    `${state}'s ${kind} ${cycle} Section 401 decision is applied: it says which nationwide permits are certified and which are denied. The conditions attached to the certified ones are not included in this answer (${who}).`,
  districtStatesNotHeld: (district: string, state: string) => `The states served by the ${district} are not held, so whether it serves ${state} was not checked.`,
};

export const headlineTexts = {
  insufficient: (numbers: number[], loss: string, type: string, why: { unconfirmed: number[]; notHeld: number[]; streamBed: number[] }) => {
    const parts = [
      ...(why.unconfirmed.length ? [`the acreage ${agree(why.unconfirmed.length, "limit", "limits")} held for ${nwpList(why.unconfirmed)} ${agree(why.unconfirmed.length, "is", "are")} not confirmed in the 2026 permit text`] : []),
      ...(why.notHeld.length ? [`no acreage limit for ${type} waters is held for ${nwpList(why.notHeld)}`] : []),
      ...(why.streamBed.length ? [`the stream-bed loss could not be compared for ${nwpList(why.streamBed)}`] : []),
    ];
    return `Insufficient data: no candidate permit (${nwpList(numbers)}) could be assessed for ${loss} of permanent loss in ${type} waters${parts.length ? `: ${parts.join("; ")}` : ""}; confirm with ${DISTRICT}.`;
  },
  districtNotServing: (district: string, state: string) => `The ${district} is not recorded as serving ${state}: confirm which Corps district handles the site.`,
  denied: (state: string, kind: string, cycle: string, numbers: number[]) =>
    `${state}'s ${kind} ${cycle} Section 401 decision denies water quality certification for ${nwpList(numbers)}, so an individual Section 401 certification is needed.`,
};
