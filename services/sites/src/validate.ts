// Field checks of every request. Problems are collected, then refused together as one
// InvalidArgument whose BadRequest names each field (details.contacts[2].email, say), so the
// gateway can answer its surface's invalid_request; nothing here ever throws anything else.
import { invalidArgument, isCalendarDate, type Violation, ViolationReason } from "@permits/rules";
import { type Contact, DueDateSource, type DueRule, type InspectionReport, InspectionType, type SiteDetails } from "@permits/proto/sites/v1/sites";

export const LIMITS = {
  id: 100,
  accountId: 200,
  actor: 200,
  name: 200,
  shortText: 200,
  address: 500,
  text: 2000,
  longText: 20_000,
  contacts: 50,
  findings: 200,
  /** The stormwater answer kept as a determination snapshot. */
  answerBytes: 2 * 1024 * 1024,
  /** Each of a plan version's two documents. */
  planBytes: 20 * 1024 * 1024,
  photoBytes: 10 * 1024 * 1024,
  photosPerInspection: 20,
  /** Rain in one event: more than any day's record in the United States. */
  maxInches: 50,
} as const;

const ACTIVITIES = ["construction", "industrial"];
const FINDING_ID = /^[A-Za-z0-9_-]{1,40}$/;
const STATE = /^[A-Z]{2}$/;

/** Collects violations; `done()` throws them as one InvalidArgument. */
export class Check {
  readonly violations: Violation[] = [];

  add(field: string, description: string, reason = ViolationReason.MALFORMED, knownValues?: string[]): this {
    this.violations.push({ field, description, reason, knownValues });
    return this;
  }

  /** A required text of at most `max` characters (after trimming). */
  required(field: string, value: string, max: number): this {
    if (value.trim() === "") return this.add(field, `${field} is required`, ViolationReason.MISSING);
    return this.optional(field, value, max);
  }

  optional(field: string, value: string, max: number): this {
    if (value.length > max) this.add(field, `${field} must be at most ${max} characters (got ${value.length})`);
    // PostgreSQL's text cannot hold U+0000; refused here alike on both databases.
    else if (value.includes("\u0000")) this.add(field, `${field} must not contain a NUL character`);
    return this;
  }

  date(field: string, value: string, required = true): this {
    if (value === "") return required ? this.add(field, `${field} is required: a date in yyyy-mm-dd form`, ViolationReason.MISSING) : this;
    if (!isCalendarDate(value)) this.add(field, `${field} must be a real calendar date in yyyy-mm-dd form (got "${value.slice(0, 40)}")`);
    return this;
  }

  number(field: string, value: number | undefined, min: number, max: number): this {
    if (value !== undefined && !(Number.isFinite(value) && value >= min && value <= max)) this.add(field, `${field} must be a number from ${min} to ${max} (got ${value})`);
    return this;
  }

  done(): void {
    if (this.violations.length > 0) throw invalidArgument(this.violations.map((v) => v.description).join("; "), this.violations);
  }
}

/** accountId and actor, present on every request. Field names are the proto JSON names. */
export function checkCaller(c: Check, req: { accountId: string; actor: string }): Check {
  return c.required("accountId", req.accountId, LIMITS.accountId).required("actor", req.actor, LIMITS.actor);
}

export function checkContact(c: Check, field: string, contact: Contact | undefined, required: boolean): void {
  if (!contact) {
    if (required) c.add(field, `${field} is required`, ViolationReason.MISSING);
    return;
  }
  c.required(`${field}.name`, contact.name, LIMITS.name)
    .optional(`${field}.role`, contact.role, LIMITS.shortText)
    .optional(`${field}.company`, contact.company, LIMITS.name)
    .optional(`${field}.phone`, contact.phone, 50)
    .optional(`${field}.email`, contact.email, 254);
  if (contact.email !== "" && !/^[^\s@]+@[^\s@]+$/.test(contact.email)) c.add(`${field}.email`, `${field}.email is not an email address`);
}

/** A site's details; the SiteInput by document 1's rules (state, activity, acres, dates). */
export function checkSiteDetails(c: Check, d: SiteDetails | undefined): void {
  if (!d) {
    c.add("details", "details is required", ViolationReason.MISSING);
    return;
  }
  c.required("details.name", d.name, LIMITS.name);
  const i = d.input;
  if (!i) {
    c.add("details.input", "details.input is required: the site as document 1's SiteInput describes it", ViolationReason.MISSING);
  } else {
    const state = i.state.trim().toUpperCase();
    if (state === "") c.add("details.input.state", "state is required: a two-letter state, territory or DC code", ViolationReason.MISSING);
    else if (!STATE.test(state)) c.add("details.input.state", `state "${i.state.slice(0, 20)}" is not a two-letter code`);
    const activity = i.activity.trim().toLowerCase();
    if (activity === "") c.add("details.input.activity", "activity is required: construction or industrial (there is no default)", ViolationReason.MISSING, ACTIVITIES);
    else if (!ACTIVITIES.includes(activity)) c.add("details.input.activity", `activity "${i.activity.slice(0, 40)}" is not known: use construction or industrial`, ViolationReason.UNKNOWN_VALUE, ACTIVITIES);
    if (i.disturbedAcres === undefined) c.add("details.input.disturbedAcres", "acres (or disturbedAcres) is required: total acres disturbed, a number 0 or more", ViolationReason.MISSING);
    c.number("details.input.disturbedAcres", i.disturbedAcres, 0, 1e6).number("details.input.maxDisturbedAcresAtOneTime", i.maxDisturbedAcresAtOneTime, 0, 1e6);
    if (i.maxDisturbedAcresAtOneTime !== undefined && i.disturbedAcres !== undefined && i.maxDisturbedAcresAtOneTime > i.disturbedAcres) {
      c.add("details.input.maxDisturbedAcresAtOneTime", `maxDisturbedAcresAtOneTime (${i.maxDisturbedAcresAtOneTime}) must not exceed disturbedAcres (${i.disturbedAcres})`);
    }
    c.optional("details.input.sectorCode", i.sectorCode ?? "", 20);
    c.date("details.input.startDate", i.startDate ?? "", false).date("details.input.endDate", i.endDate ?? "", false);
  }
  const loc = d.location;
  const hasCoordinates = loc?.latitude !== undefined || loc?.longitude !== undefined;
  if (!loc || (loc.address.trim() === "" && !hasCoordinates)) {
    c.add("details.location", "an address or a latitude and longitude is required", ViolationReason.MISSING);
  } else {
    c.optional("details.location.address", loc.address, LIMITS.address);
    if (hasCoordinates && (loc.latitude === undefined || loc.longitude === undefined)) c.add("details.location", "latitude and longitude go together: give both or neither");
    c.number("details.location.latitude", loc.latitude, -90, 90).number("details.location.longitude", loc.longitude, -180, 180);
  }
  const f = d.inspectionFrequency;
  if (f) {
    c.optional("details.inspectionFrequency.optionId", f.optionId, LIMITS.shortText);
    if (f.everyDays !== undefined && !(Number.isInteger(f.everyDays) && f.everyDays >= 1 && f.everyDays <= 90)) c.add("details.inspectionFrequency.everyDays", `everyDays must be a whole number of days from 1 to 90 (got ${f.everyDays})`);
    if ((f.optionId === "") === (f.everyDays === undefined)) c.add("details.inspectionFrequency", "give either the permit's option (optionId) or the operator's own frequency (everyDays), not both or neither");
  }
  checkContact(c, "details.operator", d.operator, true);
  if (d.contacts.length > LIMITS.contacts) c.add("details.contacts", `at most ${LIMITS.contacts} contacts (got ${d.contacts.length})`);
  else d.contacts.forEach((x, n) => checkContact(c, `details.contacts[${n}]`, x, true));
}

/** An inspection report; a draft may be incomplete, but what it holds is bounded and well formed. */
export function checkReport(c: Check, r: InspectionReport | undefined): void {
  if (!r) {
    c.add("report", "report is required", ViolationReason.MISSING);
    return;
  }
  c.date("report.inspectedOn", r.inspectedOn)
    .optional("report.startTime", r.startTime, 20)
    .optional("report.endTime", r.endTime, 20)
    .optional("report.phase", r.phase, LIMITS.text)
    .optional("report.weather", r.weather, LIMITS.text)
    .number("report.rainfallInches", r.rainfallInches, 0, LIMITS.maxInches)
    .optional("report.rainfallSource", r.rainfallSource, LIMITS.shortText)
    .optional("report.unsafeAreas", r.unsafeAreas, LIMITS.text)
    .optional("report.summary", r.summary, LIMITS.longText)
    .optional("report.inspectorQualification", r.inspectorQualification, LIMITS.shortText)
    .optional("report.areasInspected", r.areasInspected, LIMITS.text)
    .optional("report.controlsNeedingRepair", r.controlsNeedingRepair, LIMITS.text)
    .optional("report.stabilization", r.stabilization, LIMITS.text)
    .optional("report.dischargesSeen", r.dischargesSeen, LIMITS.text);
  if (!(r.type in InspectionType)) c.add("report.type", "type must be routine, storm event or other", ViolationReason.UNKNOWN_VALUE);
  else if ((r.type === InspectionType.STORM_EVENT && r.stormTriggered === false) || (r.type === InspectionType.ROUTINE && r.stormTriggered === true)) {
    c.add("report.stormTriggered", "stormTriggered contradicts type: give the same answer in both, or leave stormTriggered out");
  }
  checkContact(c, "report.inspector", r.inspector, false);
  if (r.findings.length > LIMITS.findings) {
    c.add("report.findings", `at most ${LIMITS.findings} findings (got ${r.findings.length})`);
    return;
  }
  const seen = new Set<string>();
  r.findings.forEach((f, n) => {
    const field = `report.findings[${n}]`;
    if (!FINDING_ID.test(f.id)) c.add(`${field}.id`, `${field}.id must be 1 to 40 letters, digits, - or _`);
    else if (seen.has(f.id)) c.add(`${field}.id`, `${field}.id "${f.id}" is used twice`);
    seen.add(f.id);
    c.optional(`${field}.location`, f.location, LIMITS.shortText).required(`${field}.description`, f.description, LIMITS.text);
  });
}

/**
 * Where a corrective action's due date comes from: a permit rule must be named; an operator's date
 * may name the rule they chose (one whose deadline gives no countable date); an unrecorded source names none.
 */
export function checkDueSource(c: Check, source: DueDateSource, rule: DueRule | undefined): void {
  if (!(source in DueDateSource)) {
    c.add("dueSource", "dueSource must be a permit rule or the operator's date", ViolationReason.UNKNOWN_VALUE);
    return;
  }
  if (source === DueDateSource.UNSPECIFIED && rule) c.add("dueRule", "dueRule is given only with a dueSource");
  if (source === DueDateSource.PERMIT_RULE && !rule) c.add("dueRule", "dueRule is required when dueSource is a permit rule: the rule the due date follows", ViolationReason.MISSING);
  if (!rule || source === DueDateSource.UNSPECIFIED) return;
  c.required("dueRule.requirementId", rule.requirementId, LIMITS.id)
    .required("dueRule.label", rule.label, LIMITS.shortText)
    .optional("dueRule.deadline", rule.deadline, LIMITS.text)
    .required("dueRule.citation", rule.citation, LIMITS.address);
  if (rule.requirementId !== "" && !rule.requirementId.startsWith("corrective.")) c.add("dueRule.requirementId", `dueRule.requirementId must be a corrective-action rule (corrective.*), got "${rule.requirementId.slice(0, 60)}"`);
  if (!["verified", "unverified"].includes(rule.confidence)) c.add("dueRule.confidence", "dueRule.confidence must be verified or unverified", ViolationReason.UNKNOWN_VALUE, ["verified", "unverified"]);
}
