// Shapes of the JSON files in data/stormwater/ (validated by the JSON Schemas in data/stormwater/schemas/).

export type RawConfidence = "verified" | "unverified";

export interface RawCitation {
  sourceCitation: string;
  sourceUrl: string;
  quote?: string;
  confidence: RawConfidence;
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
  status: "in_force" | "expired";
  read: boolean;
  confidence: RawConfidence;
  citation: RawCitation;
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
