// Builds lookup maps and every input-independent string once, so a determination only compares
// numbers and concatenates a few strings (the throughput target is > 20,000 per second).
import type {
  RawActivity, RawDataset, RawDistrict, RawLimit, RawPermit, RawRuleset, RawStateCertification, ResourceType,
} from "./types.js";
import { RESOURCE_TYPES } from "./types.js";
import { basisPhrase, mayRelax } from "@permits/rules";
import { gapTexts, pcnAssumed, pcnTexts } from "./texts.js";

export interface CompiledPermit {
  raw: RawPermit;
  number: number;
  title: string;
  label: string; // "NWP 29 (Residential Developments)"
  /** Every held limit that applies to each resource type (empty: not held). */
  acreageByType: Record<ResourceType, RawLimit[]>;
  linearByType: Record<ResourceType, RawLimit[]>;
  /** Gap text when no acreage limit is held for a resource type (undefined when one is held). */
  acreageGapByType: Record<ResourceType, string | undefined>;
  /**
   * Why "no PCN" cannot be said for this permit even when no held condition triggers (undefined
   * when it can: terms held in full, on a basis that may relax, with no trigger on facts the
   * request does not carry).
   */
  noPcnUnknownBecause: string | undefined;
  /** Why a PCN is treated as required where it is eligible with no trigger (see pcnTexts.notRuledOut); built once. */
  pcnNotRuledOut: string | undefined;
  /** Gap texts for an "always" PCN condition when the candidate could not be assessed. */
  alwaysPcnGaps: string[];
  /** The trigger text of its "always" PCN condition (undefined without one). */
  alwaysPcnThreshold: string | undefined;
  /** Its "always" PCN condition rests on no source read: a PCN is treated as required (see pcnAssumed). */
  pcnAssumed: boolean;
  unscreenedPcnGaps: string[];
  suspendedStates: Set<string>;
  suspendedGap?: string;
}

export interface CompiledDistrict {
  raw: RawDistrict;
  states: Set<string>;
  layer: { code: string; conditionsCompiled: boolean; name: string; url: string };
  gaps: string[];
  label: string;
}

export interface CompiledState {
  raw: RawStateCertification;
  layer: { code: string; certificationCompiled: boolean; certifier: string };
  gaps: string[];
  certified?: Set<number>;
}

export interface CompiledActivity {
  raw: RawActivity;
  permits: CompiledPermit[];
}

export interface Dataset {
  raw: RawDataset;
  ruleset: RawRuleset;
  permitsByNumber: Map<number, CompiledPermit>;
  permitNumbers: string[];
  reservedByNumber: Map<number, string>;
  districtsByCode: Map<string, CompiledDistrict>;
  districtCodes: string[];
  statesByCode: Map<string, CompiledState>;
  stateCodes: string[];
  activitiesById: Map<string, CompiledActivity>;
  activityIds: string[];
  resourceTypes: string[];
  baseProvenance: { label: string; url: string }[];
  fixedGaps: { jurisdiction: string; generalConditions: string };
}

export const CERTIFIER_NOT_HELD = "Not on record here";

function byType(limits: RawLimit[]): Record<ResourceType, RawLimit[]> {
  const out = {} as Record<ResourceType, RawLimit[]>;
  for (const t of RESOURCE_TYPES) out[t] = limits.filter((l) => l.appliesTo.includes(t));
  return out;
}

function compilePermit(p: RawPermit): CompiledPermit {
  const label = `NWP ${p.number} (${p.title})`;
  const acreageByType = byType(p.acreageLimits);
  const acreageGapByType = {} as Record<ResourceType, string | undefined>;
  for (const t of RESOURCE_TYPES) {
    if (acreageByType[t].length > 0) continue;
    acreageGapByType[t] = p.acreageLimits.length === 0
      ? `No acreage limit for ${label} is held, so its eligibility is not assessed; read the permit text in 91 FR 768 or confirm with the Corps district.`
      : `The acreage limit held for ${label} applies to ${p.acreageLimits.flatMap((l) => l.appliesTo).join(", ")} waters only; no limit for ${t} is held, so its eligibility is not assessed.`;
  }
  const always = p.pcnConditions.filter((c) => c.kind === "always");
  // An "always" term no source states is still acted on (cautious), in words that say so.
  const assumed = always.length > 0 && always.every((c) => c.basis === "unsourced");
  const unknownWhy = noPcnUnknownBecause(p);
  return {
    raw: p,
    number: p.number,
    title: p.title,
    label,
    acreageByType,
    linearByType: byType(p.streamBedLinearFeetLimit ? [p.streamBedLinearFeetLimit] : []),
    acreageGapByType,
    noPcnUnknownBecause: unknownWhy,
    pcnNotRuledOut: unknownWhy === undefined ? undefined : pcnTexts.notRuledOut(p.number, unknownWhy),
    alwaysPcnGaps: assumed ? [gapTexts.pcnAssumedIfApplies(p.number)] : always.map((c) => gapTexts.alwaysIfApplies(label, c.description)),
    alwaysPcnThreshold: always.length === 0 ? undefined : assumed ? pcnAssumed(p.number) : `always: ${always.map((c) => c.description).join("; ")}`,
    pcnAssumed: assumed,
    unscreenedPcnGaps: p.unscreenedPcnTriggers.map((t) => `${label}: ${t} The request does not carry these facts, so they were not screened.`),
    suspendedStates: new Set(p.suspendedIn?.states ?? []),
    suspendedGap: p.suspendedIn ? `${p.suspendedIn.description} (${p.suspendedIn.confidence})` : undefined,
  };
}

function noPcnUnknownBecause(p: RawPermit): string | undefined {
  const n = p.notification;
  if (!n.held) return "its notification terms are not held";
  if (!mayRelax(n)) return `its notification terms are ${basisPhrase(n)}`;
  const weak = p.pcnConditions.find((c) => !mayRelax(c));
  if (weak) return `a notification threshold of it is ${basisPhrase(weak)}`;
  if (p.unscreenedPcnTriggers.length > 0) return "its notification also turns on facts the request does not carry";
  return undefined;
}

function compileDistrict(d: RawDistrict): CompiledDistrict {
  const label = `${d.name} District (${d.code})`;
  const gaps = [
    `Regional conditions of the ${label} are not included here and were not applied; they can add PCN triggers, lower limits or suspend NWPs (${d.regulatoryUrl}).`,
  ];
  if (d.note) gaps.push(`${label}: ${d.note}`);
  return {
    raw: d,
    states: new Set(d.states),
    layer: { code: d.code, conditionsCompiled: d.conditionsCompiled, name: d.name, url: d.regulatoryUrl },
    gaps,
    label,
  };
}

function compileState(s: RawStateCertification): CompiledState {
  const certifier = s.certifyingAuthority ?? CERTIFIER_NOT_HELD;
  const who = s.certifyingAuthority ? `certifier: ${s.certifyingAuthority}` : "the certifying authority is not held";
  return {
    raw: s,
    layer: { code: s.code, certificationCompiled: s.certificationCompiled, certifier },
    gaps: [s.decisions ? gapTexts.decisionHeld(s.name, s.decisions.final ? "final" : "proposed", s.decisions.cycle, who) : `Section 401 water quality certification decisions for ${s.name} are not included here and were not applied (${who}).`],
    certified: s.decisions ? new Set(s.decisions.certified) : undefined,
  };
}

/** Pure: check cross-references and precompute. Throws on an inconsistent dataset. */
export function compileDataset(raw: RawDataset): Dataset {
  const permitsByNumber = new Map<number, CompiledPermit>();
  for (const p of raw.permits) {
    if (permitsByNumber.has(p.number)) throw new Error(`duplicate NWP ${p.number}`);
    permitsByNumber.set(p.number, compilePermit(p));
  }
  const reservedByNumber = new Map(raw.ruleset.reservedNumbers.map((r) => [r.number, r.reason]));
  for (const n of reservedByNumber.keys()) if (permitsByNumber.has(n)) throw new Error(`NWP ${n} is both reserved and present`);

  const districtsByCode = new Map<string, CompiledDistrict>();
  for (const d of raw.districts) {
    if (districtsByCode.has(d.code)) throw new Error(`duplicate district ${d.code}`);
    districtsByCode.set(d.code, compileDistrict(d));
  }
  const statesByCode = new Map<string, CompiledState>();
  for (const s of raw.states) {
    if (statesByCode.has(s.code)) throw new Error(`duplicate state ${s.code}`);
    statesByCode.set(s.code, compileState(s));
  }
  for (const d of raw.districts) {
    for (const s of d.states) if (!statesByCode.has(s)) throw new Error(`district ${d.code} serves unknown state ${s}`);
  }
  const activitiesById = new Map<string, CompiledActivity>();
  for (const a of raw.activities) {
    if (activitiesById.has(a.id)) throw new Error(`duplicate activity ${a.id}`);
    const permits = [...a.nwpNumbers].sort((x, y) => x - y).map((n) => {
      const p = permitsByNumber.get(n);
      if (!p) throw new Error(`activity ${a.id} maps to absent NWP ${n}`);
      return p;
    });
    activitiesById.set(a.id, { raw: a, permits });
  }
  const r = raw.ruleset;
  return {
    raw,
    ruleset: r,
    permitsByNumber,
    permitNumbers: [...permitsByNumber.keys()].sort((a, b) => a - b).map(String),
    reservedByNumber,
    districtsByCode,
    districtCodes: [...districtsByCode.keys()].sort(),
    statesByCode,
    stateCodes: [...statesByCode.keys()].sort(),
    activitiesById,
    activityIds: raw.activities.map((a) => a.id),
    resourceTypes: [...RESOURCE_TYPES],
    baseProvenance: [
      { label: `${r.name}, ${r.federalRegisterCitation} (effective ${r.effectiveDate}, expires ${r.expiryDate})`, url: r.sourceUrl },
      ...r.sources.filter((s) => s.url !== r.sourceUrl),
    ],
    fixedGaps: {
      jurisdiction: "This service does not decide whether the site contains waters of the United States; only a Corps district makes that jurisdictional determination.",
      generalConditions: "NWP general conditions (including 16 wild and scenic rivers, 18 endangered species, 20 historic properties, 22, 31 and 32) can require a PCN or written approval for any NWP; they are not screened.",
    },
  };
}
