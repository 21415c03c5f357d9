// Request validation. Shape problems (absent, wrong type, out of range) are MISSING or MALFORMED;
// a well-formed identifier no catalogue holds is UNKNOWN_VALUE with the whole valid set, so the
// gateway can answer 400 or 422 as document 2 requires. Every violation is reported at once.
import { isCalendarDate, type Violation, ViolationReason } from "@permits/rules";
import type { Dataset } from "./compile.js";
import type { NormalizedInput, ProjectInputLike, ResourceType } from "./types.js";

export type ValidationResult = { ok: true; input: NormalizedInput } | { ok: false; violations: Violation[] };

interface IdField {
  field: "state" | "district" | "activity" | "aquaticResourceType";
  shape: RegExp;
  shapeText: string;
  upper: boolean;
  known: (ds: Dataset) => string[];
  has: (ds: Dataset, v: string) => boolean;
}

const KEBAB = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const ID_FIELDS: IdField[] = [
  { field: "state", shape: /^[A-Z]{2}$/, shapeText: "a two-letter state or territory code", upper: true, known: (ds) => ds.stateCodes, has: (ds, v) => ds.statesByCode.has(v) },
  { field: "district", shape: /^[A-Z]{3}$/, shapeText: "a three-letter Corps district code", upper: true, known: (ds) => ds.districtCodes, has: (ds, v) => ds.districtsByCode.has(v) },
  { field: "activity", shape: KEBAB, shapeText: "a kebab-case activity identifier", upper: false, known: (ds) => ds.activityIds, has: (ds, v) => ds.activitiesById.has(v) },
  { field: "aquaticResourceType", shape: KEBAB, shapeText: "one of wetland, stream, open-water, tidal", upper: false, known: (ds) => ds.resourceTypes, has: (ds, v) => ds.resourceTypes.includes(v) },
];

const NUM_FIELDS = [
  { field: "permanentImpactAcres", required: true, unit: "acres" },
  { field: "temporaryImpactAcres", required: false, unit: "acres" },
  { field: "streamBedLinearFeet", required: false, unit: "linear feet" },
] as const;

export function validateProject(ds: Dataset, input: ProjectInputLike | undefined | null): ValidationResult {
  const src: ProjectInputLike = input ?? {};
  const violations: Violation[] = [];
  const ids: Record<string, string> = {};

  for (const f of ID_FIELDS) {
    const v = src[f.field];
    if (v === undefined || v === null || (typeof v === "string" && v.trim() === "")) {
      violations.push({ field: f.field, description: `${f.field} is required: ${f.shapeText}.`, reason: ViolationReason.MISSING, knownValues: f.known(ds) });
      continue;
    }
    if (typeof v !== "string") {
      violations.push({ field: f.field, description: `${f.field} must be a string: ${f.shapeText}.`, reason: ViolationReason.MALFORMED, knownValues: f.known(ds) });
      continue;
    }
    const norm = f.upper ? v.trim().toUpperCase() : v.trim().toLowerCase();
    if (!f.shape.test(norm)) {
      violations.push({ field: f.field, description: `${f.field} must be ${f.shapeText}.`, reason: ViolationReason.MALFORMED, knownValues: f.known(ds) });
    } else if (!f.has(ds, norm)) {
      violations.push({ field: f.field, description: `${f.field} "${norm}" is not a known value; knownValues lists every valid one.`, reason: ViolationReason.UNKNOWN_VALUE, knownValues: f.known(ds) });
    } else {
      ids[f.field] = norm;
    }
  }

  const nums: Record<string, number | undefined> = {};
  for (const f of NUM_FIELDS) {
    const v = src[f.field];
    if (v === undefined || v === null) {
      if (f.required) violations.push({ field: f.field, description: `${f.field} is required: a finite number of ${f.unit}, 0 or more.`, reason: ViolationReason.MISSING });
      continue;
    }
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0) {
      violations.push({ field: f.field, description: `${f.field} must be a finite number of ${f.unit}, 0 or more.`, reason: ViolationReason.MALFORMED });
      continue;
    }
    nums[f.field] = v === 0 ? 0 : v; // folds -0 into 0 so the echo and messages never show "-0"
  }

  const dates: Record<string, string | undefined> = {};
  for (const field of ["startDate", "endDate"] as const) {
    const v = src[field];
    if (v === undefined || v === null) continue;
    if (typeof v !== "string" || !isCalendarDate(v)) {
      violations.push({ field, description: `${field} must be a calendar date, yyyy-mm-dd.`, reason: ViolationReason.MALFORMED });
      continue;
    }
    dates[field] = v;
  }
  if (dates.startDate !== undefined && dates.endDate !== undefined && dates.endDate < dates.startDate) {
    violations.push({ field: "endDate", description: "endDate must not be before startDate.", reason: ViolationReason.MALFORMED });
  }

  if (violations.length > 0) return { ok: false, violations };
  const out: NormalizedInput = {
    state: ids.state,
    district: ids.district,
    activity: ids.activity,
    aquaticResourceType: ids.aquaticResourceType as ResourceType,
    permanentImpactAcres: nums.permanentImpactAcres as number,
  };
  if (nums.temporaryImpactAcres !== undefined) out.temporaryImpactAcres = nums.temporaryImpactAcres;
  if (nums.streamBedLinearFeet !== undefined) out.streamBedLinearFeet = nums.streamBedLinearFeet;
  if (dates.startDate !== undefined) out.startDate = dates.startDate;
  if (dates.endDate !== undefined) out.endDate = dates.endDate;
  return { ok: true, input: out };
}

/** Deterministic summary message for an InvalidArgument error. */
export function violationMessage(violations: Violation[]): string {
  const fields = violations.map((v) => v.field).join(", ");
  return violations.length === 1 ? `The project has 1 invalid field: ${fields}.` : `The project has ${violations.length} invalid fields: ${fields}.`;
}
