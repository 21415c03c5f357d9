// Sentences of the stormwater engine that are not notices (notices.ts), written once as templates
// in plain words, with counts that agree with their nouns.
import { agree, count, notConfirmed } from "@permits/rules";

/** Appended to a requirement whose value no source states: the detail keeps it in words. */
export function withheldText(agency: string): string {
  return `The value is not given because it was ${notConfirmed(agency)}.`;
}

/** The "governing permit" step for a state permit of which some requirements have been read. */
export function partlyReadPermitText(permit: string, version: string, read: number, listed: boolean, applicable = read): string {
  const readWords = `${count(read, "of its requirements has", "of its requirements have")} been read`;
  const cited = ", each with its own citation";
  const which =
    !listed ? (applicable === read ? `${readWords} and would be listed where coverage is required${cited}` : `${readWords}, and those that apply to a site of this size would be listed where coverage is required${cited}`)
    : applicable === read ? `${readWords} and ${agree(read, "is", "are")} listed${cited}`
    : applicable === 0 ? `${readWords}; none of them applies to a site of this size, so none is listed`
    : `${readWords}, and the ${applicable} that ${agree(applicable, "applies", "apply")} to a site of this size ${agree(applicable, "is", "are")} listed${cited}`;
  return `${permit} (${version}). Identified; ${which}. The rest of the permit was not read, and no other permit's numbers are substituted.`;
}

/** Why the stabilization deadline given is the stricter one. */
export function stricterValueText(days: number): string {
  return `Until it is stated, the stricter value, ${count(days, "day", "days")}, is given.`;
}

/** What sizes a state permit covers, in words ("5 acres or more", "1 to under 5 acres"). */
export function acreRangeText(min: number | undefined, maxExclusive: number | undefined): string {
  if (min !== undefined && maxExclusive !== undefined) return `${min} to under ${count(maxExclusive, "acre", "acres")}`;
  if (min !== undefined) return `${count(min, "acre", "acres")} or more`;
  if (maxExclusive !== undefined) return `under ${count(maxExclusive, "acre", "acres")}`;
  return "any size";
}

/** The "governing permit" step where no identified state permit covers the site's size. */
export function noPermitForSizeText(jurisdiction: string, permits: { name: string; range: string }[]): string {
  const held = permits.map((p) => `${p.name} covers ${p.range}`).join("; ");
  return `None of the construction permits identified for ${jurisdiction} covers a site of this size (${held}). The permit that does was not identified, so no requirements are listed.`;
}
