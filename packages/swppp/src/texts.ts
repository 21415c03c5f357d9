// Every sentence the schedule, the deadlines and the plan show a person, written once, in the words
// a site contractor uses.
import { count } from "@permits/rules";
import type { Authority, Cited } from "./rules-held.js";

const days = (n: number) => count(n, "calendar day", "calendar days");
const hours = (n: number) => count(n, "hour", "hours");
const inches = (n: number) => count(n, "inch", "inches");
/** A unit of the dataset in the singular for 1 ("1 calendar day", "1 day"). */
const ofUnit = (n: number, unit: string) => count(n, unit.replace(/days$/, "day"), unit);

/**
 * Document 1's two notices, verbatim (the contract states them; the stormwater engine attaches
 * them to every answer). notices.test.ts checks these against the engine's own strings.
 */
export const NOTICES = [
  "The service does not perform the physical site inspections the permit requires; a qualified person must do so on site.",
  "Where a state requires a credentialed preparer, a generated document is a draft for that person to review and sign, not a compliant filed plan.",
] as const;

export const UNVERIFIED = "Unverified";
export const VERIFIED = "Verified";

/** A blank the preparer fills in: what the service cannot know. */
export function blank(what = "to be completed by the preparer"): string {
  return `____________________ (${what})`;
}

export function permitWords(a: Authority): string {
  return a.permitName ? `${a.permitName}, issued by ${a.agency}` : `the permit issued by ${a.agency}`;
}

export const say = {
  /** Why no requirement is listed: the engine's own notice, or (where it gives none) these words. */
  notRead: (a: Authority) =>
    a.emptyBecause ??
    `This service has not read the governing permit (${permitWords(a)}), so it holds none of its requirements for this site. That does not mean nothing is required: confirm the requirements with ${a.agency}. No figure from another permit is used here.`,
  frequencyNotHeld: (a: Authority) =>
    `This service holds no inspection frequency for this site's permit (${permitWords(a)}). Confirm the frequency with ${a.agency} and enter it; no figure from another permit is used here.`,
  frequencyWordsOnly: (a: Authority, words: string) =>
    `The permit's inspection frequency is held only in words ("${words}"), not as a number of days. Enter the frequency you follow under it; confirm it with ${a.agency}.`,
  frequencyEntered: (n: number) => `Every ${days(n)}, as entered by the operator (not checked by this service).`,
  enteredNotUsed: "The frequency you entered is not used, because the permit's own frequency is held; it is shown with its source.",
  chooseOption: (labels: readonly string[]) =>
    `The permit offers more than one inspection frequency (${labels.join("; ")}). Record the one you chose in the plan; the schedule follows it.`,
  optionNotHeld: (id: string) => `The answer holds no "${id}" for this site's permit; choose one the answer lists.`,
  turnsOnFacts: (detail: string) => `The number of days under this option turns on a fact the site does not state. ${detail} Settle that fact, or choose the other option; until then no routine date is counted.`,
  routineDue: (n: number, from: string, fromWhat: string) => `At least every ${days(n)}, counted from ${fromWhat} on ${from}.`,
  routineDueMonths: (months: number, from: string, fromWhat: string) =>
    `At least once every ${months === 1 ? "calendar month" : `${months} calendar months`}, counted from ${fromWhat} on ${from}.`,
  noStartNoInspection: "No inspection is recorded and the site gives no start date, so no routine date can be counted. Enter the start date or the first inspection.",
  stormDue: (rain: number, threshold: number, within: number) =>
    `${inches(rain)} of rain (the trigger is ${inches(threshold)} or more): inspect within ${hours(within)}.`,
  stormWindowNotHeld: (rain: number, threshold: number, a: Authority) =>
    `${inches(rain)} of rain (the trigger is ${inches(threshold)} or more). The time allowed after the rain is not held by this service; confirm it with ${a.agency}.`,
  stormOnlyIfSensitive:
    "This storm inspection applies if the site discharges to sediment- or nutrient-impaired waters or to Tier 2, 2.5 or 3 waters, which the site does not state; it is listed so that none is missed.",
  stormTriggerEntered: (rain: number) => `Rain of ${inches(rain)} or more, as entered by the operator (not checked by this service).`,
  reportDue: (n: number) => `Complete the inspection report within ${hours(n)} of the inspection.`,
  reportNotHeld: (a: Authority) => `This service holds no confirmed deadline for the inspection report; confirm it with ${a.agency}.`,
  reducedNone:
    "This service holds no reduced inspection frequency for this permit (for example for stabilized areas, frozen ground or dry seasons). Do not inspect less often unless the permit itself allows it.",
  reducedNotHeld: (id: string) => `The reduced frequency declared ("${id}") is not one this permit holds, so it is not applied.`,
  reducedApplied: (label: string, since: string) => `${label}: in effect since ${since}, as stated by the operator.`,
  pausedBy: (label: string, since: string) =>
    `Routine inspections are paused since ${since} under "${label}", as stated by the operator; record when the condition ends.`,
  correctiveNotHeld: (a: Authority) =>
    `This service did not find the permit's rule for corrective-action deadlines (${permitWords(a)}). No deadline is invented: confirm it with ${a.agency}. Deadline: ${blank("to be completed by the operator from the permit")}`,
  correctiveDays: (n: number, unit: string) => `Within ${ofUnit(n, unit)} of finding the problem.`,
  correctiveHours: (n: number) => `Within ${hours(n)} of finding the problem (counted here to the end of the last calendar day it can fall on).`,
  correctiveBusinessDay: "By the close of the next business day (counted here as the next Monday-to-Friday; a public holiday is not taken into account).",
  correctiveWords: (words: string) => `The permit's deadline is held only in words: "${words}". No date is counted.`,
  correctiveNoValue: "No confirmed deadline is held for this rule; read its words and confirm it in the permit. No date is counted.",
  unitNotKnown: (value: number) => `The value ${value} is held without a unit this schedule knows, so no date is counted.`,
};

/** "2022 CGP Part 4.2 - https://... - Verified (read in an official agency form, checked 2026-11-25)". */
export function citationLine(c: Cited): string {
  const status = c.confidence === "verified" ? VERIFIED : UNVERIFIED;
  const parts = [`Source: ${[c.sourceCitation, c.sourceUrl].filter(Boolean).join(" - ") || "none held"}`];
  parts.push(`${status} (${BASIS_PHRASE[c.basis] ?? c.basis}${c.checkedOn ? `, checked ${c.checkedOn}` : ""})`);
  return parts.join(" - ");
}

const BASIS_PHRASE: Record<string, string> = {
  "official-text": "read in the permit's official text",
  "agency-form": "read in an official agency form",
  "prior-edition": "read in an earlier edition of the permit",
  "agency-page": "stated on the agency's own page, not in the permit text",
  secondary: "stated by a third party, not the agency",
  unsourced: "not read in any source",
};

export const ENTERED_BY_OPERATOR = "As entered by the operator (not checked by this service)";
