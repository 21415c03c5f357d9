// The inspection schedule: one pure function of the site's requirements (its determination), its
// inspections, rain events, the operator's choices and today's date. Every item carries the rule
// it comes from (with its citation) or says that the operator entered it; where the permit holds
// no frequency the schedule says so, naming the agency, and counts only what the operator entered.
import type { Determination } from "@permits/proto/stormwater/v1/stormwater";
import { addDays, addMonths, assertDate, daysForHours, maxDate } from "./dates.js";
import { authorityOf, heldRules, type Authority, type HeldRule } from "./rules-held.js";
import { ENTERED_BY_OPERATOR, say } from "./texts.js";

export type InspectionType = "routine" | "storm_event" | "other";

export interface InspectionRecord {
  date: string;
  type: InspectionType;
  /** The day the report was completed; absent or null while it is not. */
  reportCompletedOn?: string | null;
}

export interface RainEvent {
  date: string;
  inches: number;
}

/** The frequency the operator's permit sets, entered by the operator where the answer holds none. */
export interface OperatorFrequency {
  everyDays: number;
  /** Rain (inches) that triggers an extra inspection under the schedule followed, if any. */
  stormInches?: number | null;
  stormWithinHours?: number | null;
}

export interface ScheduleInput {
  determination: Determination;
  inspections: readonly InspectionRecord[];
  rainEvents: readonly RainEvent[];
  /** Where the permit offers two frequencies: the requirement id chosen ("inspection.frequency.option1" or ".option2"). */
  frequencyOption?: string | null;
  operatorFrequency?: OperatorFrequency | null;
  /** A reduced frequency the permit holds, declared in effect by the operator since a date. */
  reducedFrequency?: { requirementId: string; since: string } | null;
  /** Under a permit whose rain trigger belongs to one of its schedules: whether the schedule followed has it (default true). */
  followsRainTrigger?: boolean;
  today: string;
}

/** Where an item comes from: a rule of the permit as the answer holds it, or the operator's entry. */
export type ItemBasis = { kind: "permit"; rule: HeldRule } | { kind: "operator"; words: string } | { kind: "none"; words: string };

export interface ScheduleItem {
  due: string | null;
  words: string;
  basis: ItemBasis[];
  overdue: boolean;
}

export interface StormItem extends ScheduleItem {
  rainDate: string;
  inches: number;
  /** open: still to do; done: an inspection fell in the window; missed: none did, and a later one has since been made. */
  status: "open" | "done" | "missed";
  doneOn: string | null;
}

export interface ReportItem extends ScheduleItem {
  inspectionDate: string;
  completedOn: string | null;
}

export interface Schedule {
  today: string;
  authority: Authority;
  /** How routine inspections are counted: held (a number the permit holds), entered (by the operator), or none. */
  frequency: { source: "permit" | "operator" | "none"; everyDays: number | null; words: string; basis: ItemBasis[] };
  nextRoutine: ScheduleItem;
  stormTrigger: { inches: number; withinHours: number | null; basis: ItemBasis[] } | null;
  stormEvents: StormItem[];
  reportRule: { hours: number | null; words: string; basis: ItemBasis[] };
  reports: ReportItem[];
  reduced: { rule: HeldRule; inEffectSince: string | null }[];
  overdue: { what: "routine" | "storm_event" | "report"; due: string; words: string }[];
  /** Plain statements the page shows above the schedule (permit not read, choice to make, nothing reduced held). */
  statements: string[];
}

const OPTIONS = ["inspection.frequency.option1", "inspection.frequency.option2"];
const REDUCED = ["inspection.inactiveSite", "inspection.winterExclusion"];
// "within 24 hours of a storm event that produces 0.25 inches or more", "within 24 hours after any storm".
const STORM_WINDOW = /within (\d+) hours (?:of|after) (?:the end of |the occurrence of )?(?:either )?(?:a|an|any|the) (?:storm|rain)/i;
const STORM_INCHES = /(?:storm|rain) event (?:that produces |of )([\d.]+) inch(?:es)? or more/i;

const permitBasis = (rule: HeldRule): ItemBasis => ({ kind: "permit", rule });

interface Frequency {
  source: "permit" | "operator" | "none";
  everyDays: number | null;
  words: string;
  basis: ItemBasis[];
  storm: Schedule["stormTrigger"];
}

function validate(input: ScheduleInput): void {
  assertDate(input.today, "today");
  for (const i of input.inspections) assertDate(i.date, "inspection date");
  for (const r of input.rainEvents) {
    assertDate(r.date, "rain event date");
    if (!Number.isFinite(r.inches) || r.inches < 0) throw new RangeError(`rain must be a number of inches 0 or more, got ${r.inches}`);
  }
  const f = input.operatorFrequency;
  if (f && (!Number.isInteger(f.everyDays) || f.everyDays < 1 || f.everyDays > 366)) throw new RangeError(`the frequency entered must be a whole number of days from 1 to 366, got ${f.everyDays}`);
  if (input.reducedFrequency) assertDate(input.reducedFrequency.since, "reduced frequency start");
}

/** The storm trigger a rule's words state: inches from the rain rule's value or the words, hours from the words. */
function stormFrom(rules: readonly HeldRule[], freq: HeldRule | null): Schedule["stormTrigger"] {
  const rain = rules.find((r) => r.id === "inspection.rainEvent" && typeof r.value === "number" && r.unit === "inches of rain");
  const sources = [rain, freq].filter((r): r is HeldRule => r !== undefined && r !== null);
  const inchesFromWords = freq ? STORM_INCHES.exec(freq.detail) : null;
  const inches = rain ? (rain.value as number) : inchesFromWords ? Number(inchesFromWords[1]) : null;
  if (inches === null || !Number.isFinite(inches)) return null;
  const windowRule = sources.find((r) => STORM_WINDOW.test(r.detail));
  const withinHours = windowRule ? Number(STORM_WINDOW.exec(windowRule.detail)![1]) : null;
  return { inches, withinHours, basis: sources.map(permitBasis) };
}

function operatorFrequency(f: OperatorFrequency, statements: string[], lead: string | null): Frequency {
  if (lead) statements.push(lead);
  const storm = f.stormInches != null
    ? { inches: f.stormInches, withinHours: f.stormWithinHours ?? null, basis: [{ kind: "operator" as const, words: say.stormTriggerEntered(f.stormInches) }] }
    : null;
  return { source: "operator", everyDays: f.everyDays, words: say.frequencyEntered(f.everyDays), basis: [{ kind: "operator", words: ENTERED_BY_OPERATOR }], storm };
}

function none(words: string): Frequency {
  return { source: "none", everyDays: null, words, basis: [{ kind: "none", words }], storm: null };
}

function frequencyOf(input: ScheduleInput, rules: readonly HeldRule[], a: Authority, statements: string[]): Frequency {
  const entered = input.operatorFrequency ?? null;
  const options = rules.filter((r) => OPTIONS.includes(r.id));
  const single = rules.find((r) => r.id === "inspection.frequency") ?? null;
  if (a.notRead || (options.length === 0 && !single)) {
    const lead = a.notRead ? say.notRead(a) : say.frequencyNotHeld(a);
    if (entered) return operatorFrequency(entered, statements, lead);
    statements.push(lead);
    return none(say.frequencyNotHeld(a));
  }
  let rule: HeldRule | null = single;
  if (options.length > 0) {
    const chosen = options.find((r) => r.id === input.frequencyOption);
    if (!chosen) {
      const words = input.frequencyOption ? say.optionNotHeld(input.frequencyOption) : say.chooseOption(options.map((o) => `${o.label}: ${o.detail}`));
      statements.push(words);
      return { ...none(words), basis: options.map(permitBasis) };
    }
    rule = chosen;
  }
  const r = rule!;
  if (typeof r.value === "number" && r.unit === "calendar days") {
    if (entered) statements.push(say.enteredNotUsed);
    return { source: "permit", everyDays: r.value, words: r.detail, basis: [permitBasis(r)], storm: stormFrom(rules, r) };
  }
  if (r.value === null && options.length > 0) {
    const words = say.turnsOnFacts(r.detail);
    statements.push(words);
    return { ...none(words), basis: [permitBasis(r)], storm: stormFrom(rules, r) };
  }
  const lead = say.frequencyWordsOnly(a, typeof r.value === "string" ? r.value : r.detail);
  if (entered) {
    const f = operatorFrequency(entered, statements, lead);
    return { ...f, basis: [...f.basis, permitBasis(r)], storm: f.storm ?? stormFrom(rules, r) };
  }
  statements.push(lead);
  return { ...none(lead), basis: [permitBasis(r)], storm: stormFrom(rules, r) };
}

function routine(input: ScheduleInput, freq: Frequency, reduced: Schedule["reduced"], last: string | null): ScheduleItem {
  const paused = reduced.find((x) => x.inEffectSince !== null && typeof x.rule.value !== "number");
  if (paused) return { due: null, words: say.pausedBy(paused.rule.label, paused.inEffectSince!), basis: [permitBasis(paused.rule)], overdue: false };
  const start = input.determination.input?.startDate ?? null;
  const from = last ?? start;
  if (from === null) return { due: null, words: freq.everyDays === null ? freq.words : say.noStartNoInspection, basis: freq.basis, overdue: false };
  const fromWhat = last ? "the last inspection" : "the site's start date";
  const monthly = reduced.find((x) => x.inEffectSince !== null && x.rule.unit === "calendar month" && typeof x.rule.value === "number");
  if (monthly) {
    const months = monthly.rule.value as number;
    const due = addMonths(from, months);
    return { due, words: `${say.reducedApplied(monthly.rule.label, monthly.inEffectSince!)} ${say.routineDueMonths(months, from, fromWhat)}`, basis: [permitBasis(monthly.rule)], overdue: due < input.today };
  }
  if (freq.everyDays === null) return { due: null, words: freq.words, basis: freq.basis, overdue: false };
  const due = addDays(from, freq.everyDays);
  return { due, words: say.routineDue(freq.everyDays, from, fromWhat), basis: freq.basis, overdue: due < input.today };
}

function storms(input: ScheduleInput, trigger: Schedule["stormTrigger"], a: Authority, dates: readonly string[]): StormItem[] {
  if (!trigger || input.followsRainTrigger === false) return [];
  const site = input.determination.input;
  const sensitivityUnknown = site?.dischargesToImpairedWater === undefined || site?.dischargesToTier2Water === undefined;
  const fromOption = trigger.basis.some((b) => b.kind === "permit" && OPTIONS.includes(b.rule.id));
  const events = [...input.rainEvents].filter((r) => r.inches >= trigger.inches).sort((x, y) => (x.date < y.date ? -1 : x.date > y.date ? 1 : x.inches - y.inches));
  const seen = new Set<string>();
  const out: StormItem[] = [];
  for (const r of events) {
    if (seen.has(r.date)) continue; // one inspection answers every storm of the same day
    seen.add(r.date);
    const due = trigger.withinHours === null ? null : addDays(r.date, daysForHours(trigger.withinHours));
    const doneOn = dates.find((d) => d >= r.date && (due === null || d <= due)) ?? null;
    const later = dates.some((d) => due !== null && d > due);
    const status = doneOn ? "done" : later ? "missed" : "open";
    let words = trigger.withinHours === null ? say.stormWindowNotHeld(r.inches, trigger.inches, a) : say.stormDue(r.inches, trigger.inches, trigger.withinHours);
    if (fromOption && sensitivityUnknown) words = `${words} ${say.stormOnlyIfSensitive}`;
    out.push({ rainDate: r.date, inches: r.inches, due, words, basis: trigger.basis, status, doneOn, overdue: status === "open" && due !== null && due < input.today });
  }
  return out;
}

function reports(input: ScheduleInput, rules: readonly HeldRule[], a: Authority): { rule: Schedule["reportRule"]; items: ReportItem[] } {
  const r = rules.find((x) => x.id === "inspection.report.deadline");
  const hours = r && typeof r.value === "number" && r.unit === "hours" ? r.value : null;
  const words = hours !== null ? say.reportDue(hours) : say.reportNotHeld(a);
  const basis: ItemBasis[] = r ? [permitBasis(r)] : [{ kind: "none", words }];
  const items = input.inspections
    .filter((i) => !i.reportCompletedOn)
    .map((i) => {
      const due = hours === null ? null : addDays(i.date, daysForHours(hours));
      return { inspectionDate: i.date, completedOn: null, due, words, basis, overdue: due !== null && due < input.today };
    })
    .sort((x, y) => (x.inspectionDate < y.inspectionDate ? -1 : x.inspectionDate > y.inspectionDate ? 1 : 0));
  return { rule: { hours, words, basis }, items };
}

export function inspectionSchedule(input: ScheduleInput): Schedule {
  validate(input);
  const rules = heldRules(input.determination);
  const a = authorityOf(input.determination);
  const statements: string[] = [];
  const freq = frequencyOf(input, rules, a, statements);
  const reducedHeld = rules.filter((r) => REDUCED.includes(r.id));
  if (reducedHeld.length === 0 && !a.notRead) statements.push(say.reducedNone);
  const declared = input.reducedFrequency;
  if (declared && !reducedHeld.some((r) => r.id === declared.requirementId)) statements.push(say.reducedNotHeld(declared.requirementId));
  const reduced = reducedHeld.map((rule) => ({ rule, inEffectSince: declared && declared.requirementId === rule.id && declared.since <= input.today ? declared.since : null }));
  const dates = [...new Set(input.inspections.map((i) => i.date))].sort();
  const last = maxDate(dates);
  const nextRoutine = routine(input, freq, reduced, last);
  const stormEvents = storms(input, freq.storm, a, dates);
  const rep = reports(input, rules, a);
  const overdue: Schedule["overdue"] = [];
  if (nextRoutine.overdue && nextRoutine.due) overdue.push({ what: "routine", due: nextRoutine.due, words: nextRoutine.words });
  for (const s of stormEvents) if (s.overdue && s.due) overdue.push({ what: "storm_event", due: s.due, words: s.words });
  for (const r of rep.items) if (r.overdue && r.due) overdue.push({ what: "report", due: r.due, words: r.words });
  overdue.sort((x, y) => (x.due < y.due ? -1 : x.due > y.due ? 1 : 0));
  return {
    today: input.today,
    authority: a,
    frequency: { source: freq.source, everyDays: freq.everyDays, words: freq.words, basis: freq.basis },
    nextRoutine,
    stormTrigger: freq.storm,
    stormEvents,
    reportRule: rep.rule,
    reports: rep.items,
    reduced,
    overdue,
    statements,
  };
}
