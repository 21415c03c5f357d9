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

/** Said in `because` on a state permit's stabilization requirement: a reader of document 1's 5-acre rule is not surprised. */
export const STATE_STABILIZATION_GOVERNS =
  "The state permit's own stabilization rule governs here, not the federal CGP's rule of 7 days where more than 5 acres are open at once.";

/** The "governing permit" step where the federal CGP governs and coverage is required: how many of its requirements are verified. */
export function cgpAttachesText(permit: string, version: string, verified: number, total: number): string {
  const which = verified === total
    ? `all ${count(total, "is", "are")} verified in the permit's official text or an EPA form`
    : `${verified} of ${total} ${agree(verified, "is", "are")} verified in the permit's official text or an EPA form; the other ${total - verified} ${agree(total - verified, "is", "are")} marked unverified`;
  return `${permit}, ${version}. Coverage is required, so its requirements attach: ${which}.`;
}

/** After the federal coverage threshold on a state route: only the state's own threshold, which was not read, may reach further. */
export const STATE_THRESHOLD_NOT_READ = " This is the federal floor (40 CFR 122.26); the state permit's own coverage threshold was not read, and it may reach further.";
