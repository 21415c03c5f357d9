// The plan's own sentences and headings, written once (the shared ones are in ../texts.ts).
import type { Authority } from "../rules-held.js";
import { blank, permitWords } from "../texts.js";

export const HEADINGS = {
  operators: "1. Operators and stormwater team",
  site: "2. Site and project information",
  discharge: "3. Discharge information",
  construction: "4. Nature and sequence of construction",
  controls: "5. Erosion, sediment, stabilization and pollution-prevention controls",
  inspections: "6. Inspection and corrective-action procedures",
  stabilization: "7. Stabilization deadlines",
  records: "8. Recordkeeping and retention",
  certification: "9. Certification",
} as const;

export const plan = {
  title: (site: string) => `Stormwater Pollution Prevention Plan (SWPPP): ${site}`,
  noticesHeading: "Read first",
  restsOnHeading: "What this plan rests on",
  howToRead:
    "Each value below shows its source: the permit section, the official address, and whether it was read in the official text (Verified) or not (Unverified). An Unverified value is not a confirmed fact: confirm it in the permit before relying on it. Blanks are what this service cannot know; the preparer completes them.",
  banner: (who: string) => `DRAFT for review and signature by ${who}. Not a compliant filed plan until that person has reviewed and signed it.`,
  bannerWho: (routes: readonly string[], state: string) => (routes.length > 0 ? `a credentialed preparer as ${state} requires (${routes.join("; ")})` : `the credentialed preparer ${state} requires`),
  footer: (site: string, version: number, dataset: string, permitVersion: string | null) =>
    `${site} - plan version ${version} - dataset ${dataset}${permitVersion ? ` - permit version ${permitVersion}` : ""}`,
  noneHeldHere: (a: Authority) => `This service holds none of the permit's requirements for this part (${permitWords(a)}). Confirm them with ${a.agency}. ${blank("to be completed by the preparer from the permit")}`,
  noPermit: "Governing permit: not identified by this service (see below).",
  entered: "As entered by the operator (not checked by this service)",
  notStated: "Not stated",
  yes: "Yes",
  no: "No",
  noValue: "No value confirmed: see the words above",
  frequencyChosen: "Inspection frequency chosen",
  certificationStatement: "Certification statement the permit requires (copy it word for word from the permit)",
  credentialLine: "Who must prepare or sign this plan",
};

export const BLANKS = {
  operator: "Operator (company, contact, phone, email)",
  team: "Stormwater team: names, roles and responsibilities",
  inspectors: "Qualified inspector(s) and their training or certification",
  address: "Site address or latitude and longitude",
  receivingWaters: "Receiving waters and storm sewer outfalls",
  siteMap: "Site map (drainage, discharge points, controls, sensitive areas)",
  description: "Description of the construction activity",
  sequence: "Sequence and estimated dates of construction activities",
  erosion: "Erosion controls",
  sediment: "Sediment controls (perimeter controls, sediment basins, inlet protection, exit tracking)",
  stabilization: "Stabilization practices (temporary and permanent)",
  pollution: "Pollution prevention (fuels, wastes, washout, spill response)",
  dewatering: "Dewatering practices, if any",
  rainGauge: "Rain gauge or weather source used for storm inspections",
  recordsKept: "Where the plan and the records are kept on site",
  name: "Name",
  title: "Title",
  signature: "Signature",
  date: "Date",
} as const;
