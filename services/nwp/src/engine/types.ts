// Shapes of the data/nwp files (as checked by data/nwp/schemas) and of the engine's plain results.
// The engine works on plain objects; only service.ts turns them into protobuf messages.

export type Confidence = "verified" | "unverified";
export type { BasisWord } from "@permits/rules";
import type { BasisWord } from "@permits/rules";

/** Where and on what a fact rests (the rule of caution reads `basis` and `unchangedBy`). */
export interface Grounding {
  basis: BasisWord;
  /** yyyy-mm-dd: when its source was last read. */
  checkedOn: string;
  /** Where the text was read, when not sourceUrl itself (a copy, a form, an edition). */
  provenance?: string;
  /** The edition read, for a prior-edition basis. */
  edition?: string;
  /** A source saying the 2026 text did not change this prior-edition term. */
  unchangedBy?: string;
  quote?: string;
}
export type ResourceType = "wetland" | "stream" | "open-water" | "tidal";
export const RESOURCE_TYPES: readonly ResourceType[] = ["wetland", "stream", "open-water", "tidal"];

export interface RawLimit extends Grounding {
  appliesTo: ResourceType[];
  value: number;
  unit: "acres" | "linear feet";
  display: string;
  derivation: string;
  sourceUrl: string;
  confidence: Confidence;
}

export interface RawNoLimit extends Grounding {
  summary: string;
  sourceUrl: string;
  confidence: Confidence;
}

export interface RawPcnCondition extends Grounding {
  kind: "always" | "acreage-above" | "linear-feet-above";
  threshold?: number;
  unit: "" | "acres" | "linear feet";
  description: string;
  sourceUrl: string;
  confidence: Confidence;
}

/**
 * A permit's terms of one kind as a whole (notification terms; limit terms). For notification: `held` true: `pcnConditions` and `unscreenedPcnTriggers`
 * are the permit's complete notification terms as read (or believed, per `basis`); an empty list
 * then means "no PCN" on that basis. `held` false: not known at all.
 */
export interface RawNotification extends Grounding {
  held: boolean;
  summary: string;
  sourceUrl: string;
  confidence: Confidence;
}

export interface RawPermit {
  number: number;
  title: string;
  status: "reissued" | "new";
  sourceUrl: string;
  confidence: Confidence;
  titleBasis: string;
  acreageLimits: RawLimit[];
  streamBedLinearFeetLimit: RawLimit | null;
  /** A source saying the permit sets no stream-bed linear-foot limit: a fact with its own basis. */
  noStreamBedLinearFeetLimit?: RawNoLimit;
  pcnConditions: RawPcnCondition[];
  unscreenedPcnTriggers: string[];
  notification: RawNotification;
  /** What is known of its limits as a whole (descriptive; the engine compares acreageLimits). */
  limitTerms: RawNotification;
  suspendedIn?: { states: string[]; description: string; sourceUrl: string; confidence: Confidence };
  notes: string[];
}

export interface RawDistrict {
  code: string;
  name: string;
  division: string;
  divisionName: string;
  states: string[];
  coverage: string;
  regulatoryUrl: string;
  relatedUrls: string[];
  conditionsCompiled: false;
  regionalConditions: string[];
  confidence: Confidence;
  note?: string;
}

export interface KnownFact {
  text: string;
  sourceUrl?: string;
  confidence: Confidence;
}

export interface RawStateCertification {
  code: string;
  name: string;
  certifyingAuthority: string | null;
  certificationCompiled: false;
  authorityUrl?: string;
  known: KnownFact[];
  sourceUrl?: string;
  confidence: Confidence;
  decisions?: {
    cycle: string;
    final: boolean;
    certified: number[];
    certifiedNote: string;
    othersDenied: boolean;
    sourceUrl: string;
    confidence: Confidence;
  };
  handlingOffice?: { text: string; sourceUrl: string; confidence: Confidence };
  note: string;
}

export interface RawActivity {
  id: string;
  label: string;
  nwpNumbers: number[];
  confidence: "verify";
  note: string;
}

export interface RawRuleset {
  id: string;
  name: string;
  federalRegisterCitation: string;
  federalRegisterPages: string;
  frDocNumber: string;
  publishedDate: string;
  effectiveDate: string;
  expiryDate: string;
  sourceUrl: string;
  confidence: Confidence;
  quote: string;
  permitCount: number;
  /** The held ruleset that succeeds this one; null: none is held. */
  successorId: string | null;
  reservedNumbers: { number: number; reason: string; sourceUrl: string; confidence: Confidence }[];
  pcnReview: { reviewDays: number; description: string; quote: string; sourceUrl: string; confidence: Confidence };
  sources: { label: string; url: string }[];
  notes: string[];
}

export interface RawDataset {
  ruleset: RawRuleset;
  permits: RawPermit[];
  districts: RawDistrict[];
  states: RawStateCertification[];
  activities: RawActivity[];
}

// ---- results ----

export type VerdictId = "nwp-likely" | "nwp-with-pcn" | "individual-permit-likely" | "insufficient-data";

export interface ReasonOut {
  code: string;
  message: string;
  derivation: string;
  sourceUrl: string;
  confidence: Confidence;
  basis: BasisWord;
  /** When the source of the term behind it was last read; null when it rests on no term held. */
  checkedOn: string | null;
}

export interface CandidateOut {
  number: number;
  title: string;
  /** null: no transcribed limit is held (never the same as "too large"). */
  eligible: boolean | null;
  reasons: ReasonOut[];
}

export interface PcnTriggerOut {
  permitNumber: number;
  threshold: string;
  inputValue: string;
  sourceUrl: string;
  confidence: Confidence;
  basis: BasisWord;
  /** When the source of the triggering term was last read. */
  checkedOn: string;
}

export interface DeterminationOut {
  verdict: VerdictId;
  headline: string;
  /** Verified only when every fact the answer states is (see answerConfidence). */
  confidence: Confidence;
  candidates: CandidateOut[];
  /**
   * required: true where a trigger is crossed or a notification cannot be ruled out (terms not
   * held, on a basis that may not relax, or no candidate confirmed); false only on terms that may
   * relax. `because` says why, in the words the headline and the gaps use.
   */
  pcn: { required: boolean; reviewDays: number; triggers: PcnTriggerOut[]; because: string };
  districtLayer: { code: string; conditionsCompiled: boolean; name: string; url: string };
  stateLayer: { code: string; certificationCompiled: boolean; certifier: string };
  coverageGaps: string[];
  provenance: { label: string; url: string }[];
}

/** A request after validation: identifiers normalised, required numbers present. */
export interface NormalizedInput {
  state: string;
  district: string;
  activity: string;
  aquaticResourceType: ResourceType;
  permanentImpactAcres: number;
  temporaryImpactAcres?: number;
  streamBedLinearFeet?: number;
  startDate?: string;
  endDate?: string;
}

/** What a caller may send; every field may be absent or of the wrong type. */
export interface ProjectInputLike {
  state?: unknown;
  district?: unknown;
  activity?: unknown;
  aquaticResourceType?: unknown;
  permanentImpactAcres?: unknown;
  temporaryImpactAcres?: unknown;
  streamBedLinearFeet?: unknown;
  startDate?: unknown;
  endDate?: unknown;
}
