// Notices: the two of document 1 on every determination (fixed strings, surfaced verbatim), then
// the empty-requirements and unverified notices where they apply.

export const NOTICE_NO_INSPECTION =
  "The service does not perform the physical site inspections the permit requires; a qualified person must do so on site.";

export const NOTICE_DRAFT_DOCUMENT =
  "Where a state requires a credentialed preparer, a generated document is a draft for that person to review and sign, not a compliant filed plan.";

export const FIXED_NOTICES: readonly string[] = [NOTICE_NO_INSPECTION, NOTICE_DRAFT_DOCUMENT];

export function stateNotReadNotice(permitName: string, agency: string): string {
  return `No requirements are listed because the governing permit (${permitName}, issued by ${agency}) has not been read by this service. An empty list does not mean nothing is required; confirm the requirements with ${agency}. The federal CGP's requirements are not substituted for a state permit.`;
}

export function partialStateNotice(permitName: string, agency: string): string {
  return `Only some requirements of the governing permit (${permitName}, issued by ${agency}) have been read; those listed carry their own citations. The list is partial: it does not mean nothing else is required; confirm the full requirements with ${agency}.`;
}

export function lapsedNotice(permitName: string, agency: string, status = "has expired"): string {
  return `No requirements are listed because the governing permit (${permitName}) ${status} and no successor permit is held by this service. An empty list does not mean nothing is required; confirm with ${agency} which permit now covers the site and what it requires.`;
}

export function notIdentifiedNotice(name: string, agency: string): string {
  return `No requirements are listed because the governing permit for ${name} has not been identified and read. An empty list does not mean nothing is required; confirm the permit and its requirements with ${agency}.`;
}

export function notRequiredNotice(agency: string): string {
  return `No requirements are listed because permit coverage is not required on the facts given. An empty list does not mean nothing is required: state or local rules may still apply; confirm with ${agency}.`;
}

export function industrialNotice(agency: string): string {
  return `No requirements are listed because this service does not hold an industrial stormwater permit's requirements. An empty list does not mean nothing is required; confirm with ${agency}.`;
}

export function unverifiedNotice(name: string, note: string | null): string {
  return `Unverified: the data for ${name} is not verified at an official source. ${note ?? ""}`.trim();
}

export const UNVERIFIED_REQUIREMENTS_NOTICE =
  "Requirements marked unverified were not confirmed in the official text of the 2022 CGP: treat them as unconfirmed, not as fact, and check them in the permit at https://www.epa.gov/npdes/2022-construction-general-permit-cgp.";
