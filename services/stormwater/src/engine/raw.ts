// Shapes of the JSON files in data/stormwater/ (validated by the JSON Schemas in data/stormwater/schemas/).

export type RawConfidence = "verified" | "unverified";

/** What a fact rests on (see data/stormwater/schemas/common.schema.json). */
export type RawBasis = "official-text" | "agency-form" | "prior-edition" | "agency-page" | "secondary" | "unsourced";

export interface RawCitation {
  sourceCitation: string;
  sourceUrl: string;
  quote?: string;
  confidence: RawConfidence;
  basis: RawBasis;
  /** yyyy-mm-dd: when the source was last read (required in the data; absent on the engine's own notes). */
  checkedOn?: string;
  /** Where the text was actually read, when not sourceUrl itself. */
  provenance?: string;
  /** The edition read, for a prior-edition basis. */
  edition?: string;
  /** A source saying the current edition did not change a prior-edition term. */
  unchangedBy?: string;
}

export interface RawManifest {
  asOf: string;
  description: string;
  files: string[];
}

export interface RawModification {
  id: string;
  summary: string;
  citation: RawCitation;
  proposal?: RawCitation;
}

export interface RawPermit {
  id: string;
  name: string;
  activity: "construction" | "industrial";
  permitNumber: string | null;
  version: string;
  authority: string;
  agencyName: string;
  agencyUrl: string | null;
  permitUrl: string | null;
  effectiveDate: string | null;
  expiryDate: string | null;
  read: boolean;
  confidence: RawConfidence;
  citation: RawCitation;
  /** Where the expiry date was read, when not in `citation`. */
  expiryCitation?: RawCitation;
  /** The held permit that succeeds this one; null: none is held. */
  successorId: string | null;
  successorNote: string | null;
  statusNote: string | null;
  modifications: RawModification[];
}

export type RawRequirementKind =
  | "inspection" | "stabilization" | "corrective_action" | "recordkeeping"
  | "filing" | "monitoring" | "practice" | "buffer";

export type RawValue = number | string | null;

export interface RawCase {
  value: RawValue;
  detail: string;
  citation?: RawCitation;
  /** The value relaxes the answer against the permit's more cautious alternative. */
  relaxes?: boolean;
}

export interface RawRequirement {
  id: string;
  kind: RawRequirementKind;
  label: string;
  unit?: string;
  value?: RawValue;
  detail?: string;
  because?: string;
  citation: RawCitation;
  variesOn?: "receivingWater" | "stabilization";
  cases?: Record<string, RawCase>;
  relaxes?: boolean;
  /** Where the permit sets it only for sites of a size (acres disturbed), as its citation states. */
  minAcres?: number;
  maxAcresExclusive?: number;
  /** What was read or tried for it (research notes; not served). */
  tried?: string;
}

export type ScreenId = "esa" | "historic" | "receiving-water" | "prohibited";

export interface RawScreen {
  id: ScreenId;
  label: string;
  detail: string;
  citation: RawCitation;
}

export interface RawCgpRequirements {
  permitId: string;
  /** The CGP's qualified-person inspector rule, used on every EPA route. */
  inspectorCredential: RawCredential;
  requirements: RawRequirement[];
  screens: RawScreen[];
  citations: Record<string, RawCitation> & {
    coverageThresholdCgp: RawCitation;
    coverageThresholdFederal: RawCitation;
    reducedFrequency: RawCitation;
    msgpEffective: RawCitation;
    expiredPermitContinuation: RawCitation;
  };
}

export interface RawConfirmation {
  codes: string[];
  citation: RawCitation;
}

export interface RawEpaAreas {
  description: string;
  appendixBUrl: string;
  federalRegisterSummary: string;
  wholeJurisdictions: string[];
  indianCountry: {
    input: "onTribalLand";
    appliesEverywhere: boolean;
    listedStates: string[];
    defaultCitation: RawCitation;
    unlistedNote: string;
    confirmations: RawConfirmation[];
  };
  federalFacilities: {
    input: "federalFacility";
    codes: string[];
    defaultCitation: RawCitation;
    confirmations: RawConfirmation[];
  };
  otherAreas: {
    id: string;
    codes: string[];
    label: string;
    determinable: boolean;
    assumption: string;
    citation: RawCitation;
  }[];
}

export type RawGate = "open" | "gated" | "conditional" | "unknown";

export interface RawCredential {
  gate: RawGate;
  preparer: boolean;
  trigger: "coverage" | "acres" | "plan" | "unresolved" | "none";
  minAcres?: number;
  largerPlanCounts?: boolean;
  belowThreshold?: boolean | null;
  summary: string;
  routes: string[];
  stateCourseRequired: boolean | null;
  sourceCitation: string | null;
  sourceUrl: string | null;
  quote?: string;
  confidence: RawConfidence;
  basis: RawBasis;
  /** yyyy-mm-dd: when the rule's source was last read (required in the data; absent on an engine-made unknown gate). */
  checkedOn?: string;
}

export interface RawStatePermit {
  id: string;
  name: string;
  permitNumber: string | null;
  version: string;
  effectiveDate: string | null;
  expiryDate: string | null;
  permitUrl: string | null;
  minAcres?: number;
  maxAcresExclusive?: number;
  /** Where the dates were read; null where they were not. */
  datesCitation: RawCitation | null;
  datesNote?: string | null;
  /** Where the number was read, when not on the row's identity source. */
  numberCitation?: RawCitation | null;
  /** The agency's own notice proposing a permit to replace this one, where its expiry is not held. */
  replacementProposed?: RawCitation | null;
  successorNote: string | null;
  /** Requirements of this permit read so far: a partial list, each with its own citation. */
  requirements: RawRequirement[];
}

export interface RawJurisdiction {
  code: string;
  name: string;
  kind: "state" | "district" | "territory";
  authority: "state" | "epa";
  npdesAuthorized: boolean | null;
  agencyName: string;
  agencyShort: string;
  agencyUrl: string | null;
  governingPermitId: string | null;
  permitName: string | null;
  permitNumber: string | null;
  permitUrl: string | null;
  statePermits: RawStatePermit[];
  confidence: RawConfidence;
  sourceUrl: string | null;
  basis: RawBasis;
  authorityCitation: RawCitation | null;
  note: string | null;
  credential: RawCredential;
}

export interface RawData {
  manifest: RawManifest;
  jurisdictions: { jurisdictions: RawJurisdiction[] };
  permits: { permits: RawPermit[] };
  cgpRequirements: RawCgpRequirements;
  epaAreas: RawEpaAreas;
}
