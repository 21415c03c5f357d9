// Sentences of the stormwater engine that are not notices (notices.ts), written once as templates
// in plain words, with counts that agree with their nouns.
import { agree, count, notConfirmed } from "@permits/rules";

/** Appended to a requirement whose value no source states: the detail keeps it in words. */
export function withheldText(agency: string): string {
  return `The value is not given because it was ${notConfirmed(agency)}.`;
}

/** The "governing permit" step for a state permit of which some requirements have been read. */
export function partlyReadPermitText(permit: string, version: string, read: number, listed: boolean): string {
  const are = agree(read, "is", "are");
  return `${permit} (${version}). Identified; ${count(read, "of its requirements has", "of its requirements have")} been read and ${listed ? `${are} listed` : `would be listed where coverage is required`}, each with its own citation. The rest of the permit was not read, and no other permit's numbers are substituted.`;
}

/** Why the stabilization deadline given is the stricter one. */
export function stricterValueText(days: number): string {
  return `Until it is stated, the stricter value, ${count(days, "day", "days")}, is given.`;
}
