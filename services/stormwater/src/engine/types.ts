// The loaded, precomputed dataset the pure engine works from. Everything that does not depend on
// a site's facts is built once here, so a determination only assembles prepared parts.
import type { Citation, Confidence } from "@permits/proto/common/v1/common";
import type {
  DerivationStep,
  EligibilityScreen,
  Jurisdiction,
  PermitRef,
  Requirement,
} from "@permits/proto/stormwater/v1/stormwater";
import type { RawBasis, RawCredential, RawData, RawJurisdiction, RawPermit, RawRequirement, RawStatePermit } from "./raw.js";

export type RouteKind = "state" | "epa-area" | "tribal" | "federal-facility";

/** One way a site in a jurisdiction can be governed (its own programme, EPA area, tribal, federal). */
export interface Route {
  kind: RouteKind;
  /** "cgp": the federal CGP (read); "state": a state permit identified but not read; "none": not identified. */
  governing: "cgp" | "state" | "none";
  code: string;
  name: string;
  confidence: Confidence;
  authorityStep: DerivationStep;
  /** Static assumptions that hold for every site on this route (e.g. Oklahoma oil and gas). */
  extraSteps: DerivationStep[];
  credential: RawCredential;
  /** The "preparer credential" derivation step for appliesToThisSite true / false / unset. */
  credentialStep: { yes: DerivationStep; no: DerivationStep; unknown: DerivationStep };
  /** The Jurisdiction message with credential.appliesToThisSite true / false / unset. */
  jurisdiction: { yes: Jurisdiction; no: Jurisdiction; unknown: Jurisdiction };
  agencyName: string;
  /** Set where the route's data is unverified: why, and the agency to confirm with. */
  note: string | null;
  statePermits: PreparedStatePermit[];
}

/** A permit's term as data: the date rule reads it. */
export interface PermitTerm {
  name: string;
  effectiveDate: string | null;
  expiryDate: string | null;
  /** True where a held permit succeeds this one. */
  hasSuccessor: boolean;
  /** EPA permits continue after expiry only for operators already covered (40 CFR 122.6). */
  issuer: "epa" | "state";
  agencyName: string;
  /** Where the expiry date was read, if it was. */
  expiryCitation: Citation | undefined;
  /** The agency's own notice that it proposed a permit to replace this one (see mayHaveLapsed). */
  replacementProposed?: Citation;
}

export interface PreparedStatePermit {
  raw: RawStatePermit;
  ref: PermitRef;
  term: PermitTerm;
  /** The requirements read so far (a partial list), built once. */
  requirements: Requirement[];
  /** Those that apply to a site of this size (some apply only to small or large sites); built once per size class. */
  requirementsFor(acres: number): Requirement[];
  /** The jurisdiction as served where this permit governs and the row names no number: with this permit's number (see numberedJurisdiction). */
  jurisdiction?: Route["jurisdiction"];
}

export interface PreparedJurisdiction {
  raw: RawJurisdiction;
  listing: Jurisdiction;
  base: Route;
  tribal: Route;
  federal: Route | null;
}

export interface ReceivingWaterScreens {
  pass: EligibilityScreen;
  actionRequired: EligibilityScreen;
  unknown: EligibilityScreen;
}

export interface PreparedCgp {
  ref: PermitRef;
  term: PermitTerm;
  /** Requirement ids in dataset order. */
  order: string[];
  /** Requirements that do not depend on the site's facts, built once. */
  fixed: Map<string, Requirement>;
  /** Requirements whose value turns on site facts, kept raw and assembled per call. */
  varying: Map<string, RawRequirement>;
  staticScreens: { esa: EligibilityScreen; historic: EligibilityScreen; prohibited: EligibilityScreen };
  receivingWater: ReceivingWaterScreens;
  citations: {
    coverageCgp: Citation;
    coverageFederal: Citation;
    reducedFrequency: Citation;
    msgpEffective: Citation;
    continuation: Citation;
  };
  anyUnverifiedRequirement: boolean;
  lefjStep: DerivationStep;
}

export interface Dataset {
  /** asOf date plus a short hash of the data files. */
  version: string;
  asOf: string;
  /** All jurisdiction codes, sorted. */
  codes: string[];
  jurisdictions: Map<string, PreparedJurisdiction>;
  listing: Jurisdiction[];
  verifiedCount: number;
  coverageNote: string;
  cgp: PreparedCgp;
  msgp: { ref: PermitRef; raw: RawPermit; term: PermitTerm };
  raw: RawData;
}

/** A jurisdiction row's fields as served (see jurisdictionMsg in prepare.ts). */
export interface JurisdictionFields {
  name: string;
  npdesAuthorized: boolean | null;
  governingPermitId: string | null;
  permitNumber: string | null;
  permitName: string | null;
  agencyName: string | null;
  agencyUrl: string | null;
  permitUrl: string | null;
  confidence: Confidence;
  basis: RawBasis;
  sourceUrl: string | null;
  note: string | null;
}
