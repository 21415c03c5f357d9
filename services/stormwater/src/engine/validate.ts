// Validates and normalises a SiteInput. Every refusal is an InvalidArgument with a BadRequest
// detail naming the field, so the gateway can build the stormwater surface's invalid_request.
import { create } from "@bufbuild/protobuf";
import { invalidArgument, isCalendarDate, type Violation, ViolationReason } from "@permits/rules";
import { SiteInputSchema, type SiteInput } from "@permits/proto/stormwater/v1/stormwater";
import type { Dataset } from "./types.js";

export const ACTIVITIES = ["construction", "industrial"] as const;
export type Activity = (typeof ACTIVITIES)[number];

/** The site as the engine reads it. Tri-state inputs keep `undefined` for "not stated". */
export interface Site {
  state: string;
  activity: Activity;
  acres: number;
  maxAtOnce: number | undefined;
  partOfLargerPlan: boolean;
  partOfLargerPlanStated: boolean;
  sectorCode: string | undefined;
  startDate: string | undefined;
  endDate: string | undefined;
  onTribalLand: boolean;
  federalFacility: boolean;
  impaired: boolean | undefined;
  tier2: boolean | undefined;
  arid: boolean;
}

function acreViolation(field: string, v: number): Violation | undefined {
  if (!Number.isFinite(v)) return { field, description: `${field} must be a finite number (got ${v})`, reason: ViolationReason.MALFORMED };
  if (v < 0) return { field, description: `${field} must be 0 or more (got ${v})`, reason: ViolationReason.MALFORMED };
  return undefined;
}

export function normalizeSite(ds: Dataset, input: SiteInput | undefined): Site {
  const i = input ?? create(SiteInputSchema);
  const v: Violation[] = [];

  const state = i.state.trim().toUpperCase();
  if (state === "") {
    v.push({ field: "state", description: "state is required: a two-letter state, territory or DC code", reason: ViolationReason.MISSING, knownValues: ds.codes });
  } else if (!ds.jurisdictions.has(state)) {
    v.push({ field: "state", description: `state "${i.state}" is not a known state, territory or DC code`, reason: ViolationReason.UNKNOWN_VALUE, knownValues: ds.codes });
  }

  const activity = i.activity.trim().toLowerCase();
  if (activity === "") {
    v.push({ field: "activity", description: "activity is required: construction or industrial (there is no default)", reason: ViolationReason.MISSING, knownValues: [...ACTIVITIES] });
  } else if (!(ACTIVITIES as readonly string[]).includes(activity)) {
    v.push({ field: "activity", description: `activity "${i.activity}" is not known: use construction or industrial`, reason: ViolationReason.UNKNOWN_VALUE, knownValues: [...ACTIVITIES] });
  }

  const acres = i.disturbedAcres;
  if (acres === undefined) {
    v.push({ field: "disturbedAcres", description: "acres (or disturbedAcres) is required: total acres disturbed, a number 0 or more", reason: ViolationReason.MISSING });
  } else {
    const bad = acreViolation("disturbedAcres", acres);
    if (bad) v.push(bad);
  }

  const max = i.maxDisturbedAcresAtOneTime;
  if (max !== undefined) {
    const bad = acreViolation("maxDisturbedAcresAtOneTime", max);
    if (bad) v.push(bad);
    else if (acres !== undefined && Number.isFinite(acres) && max > acres) {
      v.push({ field: "maxDisturbedAcresAtOneTime", description: `maxDisturbedAcresAtOneTime (${max}) must not exceed disturbedAcres (${acres})`, reason: ViolationReason.MALFORMED });
    }
  }

  for (const [field, value] of [["startDate", i.startDate], ["endDate", i.endDate]] as const) {
    if (value !== undefined && !isCalendarDate(value)) {
      v.push({ field, description: `${field} must be a real calendar date in yyyy-mm-dd form (got "${value}")`, reason: ViolationReason.MALFORMED });
    }
  }

  if (v.length > 0) throw invalidArgument(v.map((x) => x.description).join("; "), v);

  return {
    state,
    activity: activity as Activity,
    acres: acres!,
    maxAtOnce: max,
    partOfLargerPlan: i.partOfLargerPlan ?? false,
    partOfLargerPlanStated: i.partOfLargerPlan !== undefined,
    sectorCode: i.sectorCode,
    startDate: i.startDate,
    endDate: i.endDate,
    onTribalLand: i.onTribalLand ?? false,
    federalFacility: i.federalFacility ?? false,
    impaired: i.dischargesToImpairedWater,
    tier2: i.dischargesToTier2Water,
    arid: i.aridClimate ?? false,
  };
}

/** The normalised input echoed on a determination: defaults filled, tri-states left unset. */
export function echoInput(s: Site): SiteInput {
  return create(SiteInputSchema, {
    state: s.state,
    activity: s.activity,
    disturbedAcres: s.acres,
    maxDisturbedAcresAtOneTime: s.maxAtOnce,
    partOfLargerPlan: s.partOfLargerPlan,
    sectorCode: s.sectorCode,
    startDate: s.startDate,
    endDate: s.endDate,
    onTribalLand: s.onTribalLand,
    federalFacility: s.federalFacility,
    dischargesToImpairedWater: s.impaired,
    dischargesToTier2Water: s.tier2,
    aridClimate: s.arid,
  });
}
