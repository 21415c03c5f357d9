// What the answers' words may not contain (issue 27, section 4): the team's internal vocabulary
// and agreement errors. Used by the corpus test over both engines' answers.
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "../..");

/** The request fields a user sends: naming them in an answer is the user's own vocabulary. */
const INPUT_FIELDS = new Set([
  "state", "activity", "acres", "disturbedAcres", "maxDisturbedAcresAtOneTime", "partOfLargerPlan", "sectorCode", "startDate", "endDate",
  "onTribalLand", "federalFacility", "dischargesToImpairedWater", "dischargesToTier2Water", "aridClimate",
  "district", "aquaticResourceType", "permanentImpactAcres", "temporaryImpactAcres", "streamBedLinearFeet",
]);

/** camelCase keys of the data files: names of the team's fields, never words for a user. */
function dataFieldNames(): string[] {
  const names = new Set<string>();
  const walk = (o: unknown): void => {
    if (Array.isArray(o)) o.forEach(walk);
    else if (o && typeof o === "object") {
      for (const [k, v] of Object.entries(o)) {
        if (/[a-z][A-Z]/.test(k) && !INPUT_FIELDS.has(k)) names.add(k);
        walk(v);
      }
    }
  };
  for (const dir of ["data/stormwater", "data/nwp"]) {
    for (const f of fs.readdirSync(path.join(root, dir))) if (f.endsWith(".json")) walk(JSON.parse(fs.readFileSync(path.join(root, dir, f), "utf8")));
  }
  return [...names].sort();
}

const FIELDS = dataFieldNames();

const INTERNAL: [string, RegExp][] = [
  ["research notes", /research notes?/i],
  ["UNCONFIRMED", /\bUNCONFIRMED\b/],
  ["a reference code", /(?<!BMP )\b[CQ]\d{1,3}\b/], // research codes (C17); a state's own BMP codes are official
  ["belief", /\bbelie(?:f|fs|ve|ves|ved|ving)\b/i],
  ["a file name", /\b[\w-]+\.(?:json|ts|mjs|md|proto)\b/],
  ["a field name", new RegExp(`\\b(?:${FIELDS.join("|")})\\b`)],
  ["null", /\bnull\b/],
];

/**
 * The team's words that reached answers and pages (issue 41, section 3): how the data was read,
 * what the engine does with it, and the contract's document numbers. A contractor reads what is
 * known and where to confirm it.
 */
const JARGON: [string, RegExp][] = [
  ["a gate's internal name", /\bGate (?:unknown|gated|open|not[ -]gated|ungated)\b/i],
  ["a stored copy", /\bstored cop(?:y|ies)\b/i],
  ["a complete copy", /\b(?:complete copy|read in full)\b/i],
  ["relaxes", /\brelax(?:es|ed|ing)?\b/i],
  ["a data row", /\brows?\b(?! of)/i],
  ["render", /\brender(?:s|ed|ing)?\b/i],
  // "dataset 2026-11-26.…" labels a version (a plan's footer); "in this dataset" is the team speaking.
  ["the dataset", /\b(?:this|the|these|both|our|its|in) datasets?\b/i],
  ["compiled", /\bcompil(?:e|es|ed|ing|ation)\b/i],
  // The API's two halves; the ground's surface (surface erosion, impervious surfaces) is a contractor's word.
  ["surface", /\b(?:stormwater|nwp|this|that|each|either|both|other|one|same|which) surfaces?\b|\bsurface['’]s\b/i],
  ["a document number", /\bdocuments? [12]\b/i],
  ["legacy", /\blegacy\b/i],
];

const AGREEMENT: [string, RegExp][] = [
  ["one with a plural noun", /(?<![\d./])\b1 (?:calendar |linear |business )?(?:requirements|acres|days|permits|NWPs|limits|hours|years|projects|feet)\b/],
  ["many with a singular noun", /(?<![\d./])(?<!(?:NWP|Section|Part|Order|Tier|Chapter|§) )\b(?:0|[2-9]|[1-9]\d{1,2})\b (?:calendar |business )?(?:requirement|acre|day|permit|limit|hour|year|project)\b(?![s-])/],
  ["one of ... have/are", /\b1 of (?:its|the) \w+ (?:have|are)\b/],
  ["many of ... has/is", /\b(?:[2-9]|\d{2,}) of (?:its|the) \w+ (?:has|is)\b/],
  ["has been ... and are", /\bhas been \w+ and are\b/],
  ["NWP with several numbers", /\bNWP \d+(?:, \d+)* and \d+\b/],
  ["NWPs with one number", /\bNWPs \d+(?![\d,–-]| and)/],
  ["a singular limit of several NWPs", /\b(?:limit|requirement|term|condition) held for NWPs [\d, and]+ (?:are|have)\b/],
  ["plural limits of one NWP", /\b(?:limits|requirements|terms|conditions) held for NWP \d+ (?:is|has)\b/],
];

/** Every problem in one text: [kind, the match]. */
/** What a person reads in the app's own words: no tags or styles, nor quotes (a permit's or the regulation's words); entities decoded. */
export function appPageText(html: string): string {
  return html.replace(/<(script|style|blockquote|q)\b[^>]*>[\s\S]*?<\/\1>/gi, " ").replace(/<[^>]+>/g, " ").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, "&").replace(/\s+/g, " ").trim();
}

export function wordProblems(text: string): string[] {
  const out: string[] = [];
  for (const [kind, re] of [...INTERNAL, ...JARGON, ...AGREEMENT]) {
    const m = re.exec(text);
    if (m) out.push(`${kind}: "${m[0]}" in "${text.length > 200 ? `${text.slice(Math.max(0, m.index - 80), m.index + 120)}…` : text}"`);
  }
  return out;
}

/** Keys whose values are not prose: the permits' own words (quotes), ids, codes, enums and URLs. */
const NOT_PROSE = new Set([
  "quote", "id", "code", "sourceUrl", "url", "permitUrl", "agencyUrl", "regulatoryUrl", "authorityUrl", "basis", "confidence", "kind", "status", "gate", "coverage", "verdict",
  "datasetVersion", "dataset", "state", "district", "activity", "aquaticResourceType", "documentStatus",
]);

/** Every string of an answer that a person reads (quotes are the permits' own words; ids, codes and URLs are not prose). */
export function texts(o: unknown, key = "", out: string[] = []): string[] {
  if (typeof o === "string") {
    if (!NOT_PROSE.has(key) && !/^https?:\/\//.test(o)) out.push(o);
  } else if (Array.isArray(o)) {
    for (const x of o) texts(x, key, out);
  } else if (o && typeof o === "object") {
    for (const [k, v] of Object.entries(o)) if (k !== "input" && k !== "site") texts(v, k, out);
  }
  return out;
}
