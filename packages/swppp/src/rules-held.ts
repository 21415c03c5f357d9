// What the site's determination holds, read for scheduling and the plan: each requirement with its
// value, the unit that value is counted in, and its citation in plain words.
//
// The answer's Requirement carries its value's unit as the dataset (data/stormwater) holds it. Where
// that unit is one the schedule counts in, it is used as served (Arizona's corrective measures are
// due in "days", not calendar days); UNITS restates the dataset's units per requirement id (`as`:
// the dataset's words for it), and units.test.ts fails the moment the dataset holds a unit this
// table does not list for the id, or a number under an id the table lacks.
import { Basis, Confidence, type Citation } from "@permits/proto/common/v1/common";
import type { Determination, Requirement } from "@permits/proto/stormwater/v1/stormwater";
import { basisWordOf } from "@permits/rules";

/** The units the schedule counts in; other ids carry the dataset's own phrase for display. */
export type Unit = "calendar days" | "days" | "hours" | "calendar month" | "years" | "inches of rain" | (string & {});

const COUNTED: readonly string[] = ["calendar days", "days", "hours", "calendar month", "years", "inches of rain"];

export const UNITS: Readonly<Record<string, { unit: Unit; as: readonly string[] }>> = {
  "inspection.frequency": { unit: "calendar days", as: ["calendar days"] },
  "inspection.frequency.option1": { unit: "calendar days", as: ["calendar days"] },
  "inspection.frequency.option2": { unit: "calendar days", as: ["calendar days"] },
  "inspection.rainEvent": { unit: "inches of rain", as: ["inches of rain"] },
  "inspection.report.deadline": { unit: "hours", as: ["hours"] },
  "inspection.afterDischarge": { unit: "hours", as: ["hours after a discharge"] },
  "inspection.inactiveSite": { unit: "calendar month", as: ["calendar month"] },
  "corrective.minor": { unit: "calendar days", as: ["calendar days", "days"] },
  "corrective.major": { unit: "calendar days", as: ["calendar days"] },
  "corrective.repairs": { unit: "hours", as: ["hours"] },
  "corrective.swpppUpdate": { unit: "calendar days", as: ["calendar days"] },
  "corrective.swpppRevision": { unit: "days", as: ["days"] },
  "corrective.bmpImplementation": { unit: "days", as: ["days"] },
  "corrective.documentation": { unit: "hours", as: ["hours"] },
  "retention.inspection": { unit: "years", as: ["years"] },
  "retention.records": { unit: "years", as: ["years"] },
  "retention.swppp": { unit: "years", as: ["years after termination"] },
  // Shown in the plan beside their values (every permit holding them states the same unit).
  "buffer.trigger": { unit: "feet", as: ["feet"] },
  "buffer.width": { unit: "feet", as: ["feet"] },
  "practice.disturbanceLimit": { unit: "acres", as: ["acres"] },
  "practice.disturbedAreaLimit": { unit: "acres at any one time", as: ["acres at any one time"] },
  "recordkeeping.swpppUpdate": { unit: "calendar days", as: ["calendar days", "days"] },
  "filing.coverageEffective": { unit: "hours after DEP receives the complete NOI", as: ["hours after DEP receives the complete NOI"] },
  "filing.dmr": { unit: "days after month end", as: ["days after month end"] },
  "filing.highTurbidity": { unit: "hours after analysis", as: ["hours after analysis"] },
  "filing.ms4Notice": { unit: "days before commencing construction", as: ["days before commencing construction"] },
  "filing.noiEmergency": { unit: "days after land disturbance begins", as: ["days after land disturbance begins"] },
  "stabilization.permanent": { unit: "calendar days after the last land-disturbing activity", as: ["calendar days after the last land-disturbing activity"] },
  // Ids whose unit differs between permits (filing.noi, filing.not, stabilization.*) are not
  // listed: their value is shown bare beside the requirement's own words, which state it.
};

/** Values that measure something else than the schedule counts, by "permit id / requirement id". */
export const NOT_COUNTED: Readonly<Record<string, string>> = {
  // California's qualifying precipitation event is a forecast, not rain measured at the site.
  "ca-order-2022-0057-dwq/inspection.rainEvent": "inches of rain in 24 hours",
};

/** `served`: the unit the answer gives; used where the table lists it for the id and the schedule counts in it. */
function unitOf(permitId: string, id: string, served: string | undefined): Unit | null {
  if (NOT_COUNTED[`${permitId}/${id}`]) return null;
  const u = UNITS[id];
  if (!u) return null;
  return served !== undefined && u.as.includes(served) && COUNTED.includes(served) ? served : u.unit;
}

/** A citation in the words a reader sees. */
export interface Cited {
  sourceCitation: string;
  sourceUrl: string;
  quote: string | null;
  confidence: "verified" | "unverified";
  /** What the fact rests on: official-text, agency-form, prior-edition, agency-page, secondary, unsourced. */
  basis: string;
  checkedOn: string | null;
}


export function cited(c: Citation | undefined): Cited {
  return {
    sourceCitation: c?.sourceCitation || "Not verified",
    sourceUrl: c?.sourceUrl ?? "",
    quote: c?.quote ?? null,
    // Anything not stated as verified is shown as Unverified.
    confidence: c?.confidence === Confidence.VERIFIED ? "verified" : "unverified",
    basis: basisWordOf(c?.basis),
    checkedOn: c?.checkedOn ?? null,
  };
}

/** One requirement of the answer, as the schedule and the plan read it. */
export interface HeldRule {
  id: string;
  label: string;
  detail: string;
  /** A number, a value in words, or null where no source states one. */
  value: number | string | null;
  /** The unit of a number, where the dataset states one for this id. */
  unit: Unit | null;
  because: string | null;
  citation: Cited;
}

export function heldRule(r: Requirement, permitId = ""): HeldRule {
  const k = r.value?.kind;
  const value = k?.case === "numberValue" ? k.value : k?.case === "stringValue" ? k.value : null;
  return {
    id: r.id,
    label: r.label,
    detail: r.detail,
    value,
    unit: typeof value === "number" ? unitOf(permitId, r.id, r.unit) : null,
    because: r.because ?? null,
    citation: cited(r.citation),
  };
}

export function heldRules(d: Determination): HeldRule[] {
  return d.requirements.map((r) => heldRule(r, d.permit?.id ?? ""));
}

/** Who to confirm with, and what the governing permit is called: every "not held" statement names them. */
export interface Authority {
  agency: string;
  permitName: string | null;
  /** True where the answer lists none of the permit's requirements (not read, lapsed, not identified, not required). */
  notRead: boolean;
  /** Why the list is empty, in the engine's own notice (it names the agency); null where requirements are listed. */
  emptyBecause: string | null;
}

/** The engine's notices on an empty list all begin so (services/stormwater/src/engine/notices.ts). */
const EMPTY_LIST = "No requirements are listed because";

export function authorityOf(d: Determination): Authority {
  const agency = d.permit?.agencyName || d.jurisdiction?.agencyName || d.permit?.authority || `the permitting authority of ${d.jurisdiction?.name ?? d.input?.state ?? "the state"}`;
  const notRead = d.requirements.length === 0;
  const emptyBecause = notRead ? d.notices.find((n) => n.startsWith(EMPTY_LIST)) ?? null : null;
  return { agency, permitName: d.permit?.name || d.jurisdiction?.permitName || null, notRead, emptyBecause };
}

const SINGULAR: Record<string, string> = { days: "day", hours: "hour", years: "year", inches: "inch", feet: "foot", acres: "acre" };

/** "7 calendar days", "1 inch of rain", "close of next business day", or null. */
export function valueWords(r: HeldRule): string | null {
  if (r.value === null) return null;
  if (typeof r.value === "string") return r.value;
  if (r.unit === "calendar month") return r.value === 1 ? "1 calendar month" : `${r.value} calendar months`;
  if (!r.unit) return String(r.value);
  return `${r.value} ${r.value === 1 ? r.unit.replace(/^(calendar )?(days|hours|years|inches|feet|acres)\b/, (_m, pre: string | undefined, w: string) => `${pre ?? ""}${SINGULAR[w]}`) : r.unit}`;
}
