// Jurisdiction list, one jurisdiction, and the credential gate lookup. An unknown code is an
// InvalidArgument with the known codes; an unverified row is answered, never NotFound.
import { invalidArgument, ViolationReason } from "@permits/rules";
import type { CredentialResult, Jurisdiction } from "@permits/proto/stormwater/v1/stormwater";
import { credentialResult } from "./credential.js";
import type { Dataset } from "./types.js";

export interface JurisdictionList {
  count: number;
  verifiedCount: number;
  coverageNote: string;
  jurisdictions: Jurisdiction[];
}

export function listJurisdictions(ds: Dataset): JurisdictionList {
  return { count: ds.listing.length, verifiedCount: ds.verifiedCount, coverageNote: ds.coverageNote, jurisdictions: ds.listing };
}

/** A known code, upper-cased; otherwise InvalidArgument naming `field` with every known code. */
export function requireCode(ds: Dataset, raw: string, field: string): string {
  const code = raw.trim().toUpperCase();
  if (code === "") {
    throw invalidArgument(`${field} is required: a two-letter state, territory or DC code`, [
      { field, description: `${field} is required`, reason: ViolationReason.MISSING, knownValues: ds.codes },
    ]);
  }
  if (!ds.jurisdictions.has(code)) {
    throw invalidArgument(`${field} "${raw}" is not a known state, territory or DC code`, [
      { field, description: `${field} "${raw}" is not a known state, territory or DC code`, reason: ViolationReason.UNKNOWN_VALUE, knownValues: ds.codes },
    ]);
  }
  return code;
}

// The violation names "state" (not the request's `code`): document 1 answers an unknown
// jurisdiction code with known_states whichever lookup carried it.
export function getJurisdiction(ds: Dataset, rawCode: string): Jurisdiction {
  return ds.jurisdictions.get(requireCode(ds, rawCode, "state"))!.listing;
}

export function getCredentialGate(ds: Dataset, rawState: string, acres: number | undefined): CredentialResult {
  const code = requireCode(ds, rawState, "state");
  if (acres !== undefined && (!Number.isFinite(acres) || acres < 0)) {
    throw invalidArgument(`acres must be a finite number 0 or more (got ${acres})`, [
      { field: "acres", description: `acres must be a finite number 0 or more (got ${acres})`, reason: ViolationReason.MALFORMED },
    ]);
  }
  return credentialResult(ds, code, acres);
}
