// Small builders from raw data to protobuf messages. Used at load time (static parts) and per
// call (the few parts that carry the site's numbers).
import { create } from "@bufbuild/protobuf";
import { basisOf, mayShowValue } from "@permits/rules";
import { withheldText } from "./texts.js";
import { NullValue, ValueSchema, type Value } from "@bufbuild/protobuf/wkt";
import { CitationSchema, Confidence, type Citation } from "@permits/proto/common/v1/common";
import {
  CredentialGate,
  DerivationStepSchema,
  PermitRefSchema,
  RequirementKind,
  RequirementSchema,
  type DerivationStep,
  type PermitRef,
  type Requirement,
} from "@permits/proto/stormwater/v1/stormwater";
import type { RawBasis, RawCitation, RawConfidence, RawGate, RawRequirement, RawRequirementKind, RawStatePermit, RawValue } from "./raw.js";

export function confidenceOf(c: RawConfidence): Confidence {
  return c === "verified" ? Confidence.VERIFIED : Confidence.UNVERIFIED;
}

export function citationMsg(c: RawCitation): Citation {
  return create(CitationSchema, {
    sourceCitation: c.sourceCitation,
    sourceUrl: c.sourceUrl,
    quote: c.quote,
    confidence: confidenceOf(c.confidence),
    basis: basisOf(c.basis),
    checkedOn: c.checkedOn,
  });
}

const NULL_VALUE: Value = create(ValueSchema, { kind: { case: "nullValue", value: NullValue.NULL_VALUE } });

export function valueMsg(v: RawValue): Value {
  if (v === null) return NULL_VALUE;
  if (typeof v === "number") return create(ValueSchema, { kind: { case: "numberValue", value: v } });
  return create(ValueSchema, { kind: { case: "stringValue", value: v } });
}

const KINDS: Record<RawRequirementKind, RequirementKind> = {
  inspection: RequirementKind.INSPECTION,
  stabilization: RequirementKind.STABILIZATION,
  corrective_action: RequirementKind.CORRECTIVE_ACTION,
  recordkeeping: RequirementKind.RECORDKEEPING,
  filing: RequirementKind.FILING,
  monitoring: RequirementKind.MONITORING,
  practice: RequirementKind.PRACTICE,
  buffer: RequirementKind.BUFFER,
};

export function kindOf(k: RawRequirementKind): RequirementKind {
  return KINDS[k];
}

const GATES: Record<RawGate, CredentialGate> = {
  open: CredentialGate.OPEN,
  gated: CredentialGate.GATED,
  conditional: CredentialGate.CONDITIONAL,
  unknown: CredentialGate.UNKNOWN,
};

export function gateOf(g: RawGate): CredentialGate {
  return GATES[g];
}

export function step(stepName: string, result: string, citation?: Citation): DerivationStep {
  return create(DerivationStepSchema, { step: stepName, result, citation });
}

/** Acre figures in words, deterministic (JavaScript's shortest round-trip form). */
export function acres(n: number): string {
  return n === 1 ? "1 acre" : `${n} acres`;
}

/** A value no source states at all (and document 1 does not fix): withheld as null. */
export function isWithheld(value: RawValue | undefined, c: RawCitation, fixedByContract = false): boolean {
  return value !== null && value !== undefined && !mayShowValue(c, fixedByContract);
}

/**
 * The rule of caution on a requirement value: a value is served with its citation's confidence
 * and basis (clients render unverified ones as Unverified); only a value no source states at all
 * is withheld (null), and the detail, which keeps it in words, says so. A value document 1 fixes
 * is served as it states it.
 */
export function servedValue(value: RawValue, detail: string, c: RawCitation, agency: string, fixedByContract = false): { value: RawValue; detail: string } {
  if (!isWithheld(value, c, fixedByContract)) return { value, detail };
  return { value: null, detail: `${detail} ${withheldText(agency)}` };
}

/** A PermitRef from a permit's identity and the agency that issues it. */
export function permitRefOf(
  p: Pick<RawStatePermit, "id" | "name" | "permitNumber" | "version" | "permitUrl" | "effectiveDate" | "expiryDate">,
  issuer: { authority: string; agencyName: string; agencyUrl: string | null },
  confidence: PermitRef["confidence"],
  basis: RawBasis,
): PermitRef {
  return create(PermitRefSchema, {
    id: p.id,
    name: p.name,
    permitNumber: p.permitNumber ?? undefined,
    version: p.version,
    authority: issuer.authority,
    agencyName: issuer.agencyName,
    agencyUrl: issuer.agencyUrl ?? undefined,
    permitUrl: p.permitUrl ?? undefined,
    effectiveDate: p.effectiveDate ?? undefined,
    expiryDate: p.expiryDate ?? undefined,
    confidence,
    basis: basisOf(basis),
  });
}

/** A fixed requirement as served: its value at its confidence, unless no source states it (see servedValue). */
export function fixedRequirement(q: RawRequirement, defaultBecause: string, agency: string, fixedByContract = false): Requirement {
  const { value, detail } = servedValue(q.value ?? null, q.detail ?? "", q.citation, agency, fixedByContract);
  return create(RequirementSchema, {
    id: q.id,
    kind: kindOf(q.kind),
    label: q.label,
    detail,
    value: valueMsg(value),
    citation: citationMsg(q.citation),
    because: q.because ?? defaultBecause,
    unit: q.unit,
  });
}

