// The site form, drawn and read once for adding a site and for editing one: the name, where it is,
// the operator, and the SiteInput fields under document 1's names, read by the same parser as
// POST /api/v1/determine, with each error beside its field. Saving asks the stormwater service for
// the answer first, so a site is never stored with details its answer was not worked out from.
import type { SiteInput } from "@permits/proto/stormwater/v1/stormwater";
import type { SiteDetails } from "@permits/proto/sites/v1/sites";
import type { AppDeps } from "../../deps.js";
import { parseSite } from "../stormwater/routes.js";
import { html, type Html } from "./html.js";
import { ViolationReason } from "@permits/rules";
import { checkbox, csrfField, errorSummary, fieldErrorsOf, input, labelledWords, select, type FieldErrors, type FieldWords, type WordedField } from "./form.js";

const TRI_STATE = [["", "Not checked yet"], ["yes", "Yes"], ["no", "No"]] as const;

type Kind = "code" | "choice" | "acres" | "date";
/** The SiteInput fields the form carries, under document 1's names: each one's label, and what kind of answer it takes. */
const SITE_INPUT: Record<string, { label: string; kind: Kind }> = {
  state: { label: "State (two letters, e.g. TX)", kind: "code" },
  activity: { label: "Activity", kind: "choice" },
  acres: { label: "Total acres disturbed over the whole project", kind: "acres" },
  maxDisturbedAcresAtOneTime: { label: "Most acres open at any one time", kind: "acres" },
  partOfLargerPlan: { label: "Part of a larger common plan of development or sale", kind: "choice" },
  dischargesToImpairedWater: { label: "Does it drain to a water impaired for sediment or nutrients?", kind: "choice" },
  dischargesToTier2Water: { label: "Does it drain to a Tier 2, 2.5 or 3 water?", kind: "choice" },
  aridClimate: { label: "Arid, semi-arid or drought-stricken area", kind: "choice" },
  onTribalLand: { label: "On tribal land (Indian country)", kind: "choice" },
  federalFacility: { label: "A federal facility", kind: "choice" },
  startDate: { label: "Start date", kind: "date" },
  endDate: { label: "End date", kind: "date" },
};
const SITE_INPUT_FIELDS = Object.keys(SITE_INPUT);
const label = (name: string) => SITE_INPUT[name].label;

/** What a refused answer to a field of each kind needs, in the form's words (`typed`: what was typed). */
const WRONG: Record<Kind, (typed: string) => string> = {
  code: (typed) => `“${typed}” is not a US state, territory or DC code.`,
  choice: () => "choose one of the answers offered.",
  acres: (typed) => `give a number of acres, 0 or more, e.g. 4.5${typed && !Number.isFinite(Number(typed)) ? ` (“${typed}” is not a number)` : ""}.`,
  date: () => "give a real date.",
};

/**
 * The form's own words for the parser's and the services' refusals of the SiteInput fields. The
 * one refusal of a good number, the most acres open at once above the total, says so.
 */
function siteInputWords(typed: Record<string, string>): FieldWords {
  const fields = Object.fromEntries(Object.entries(SITE_INPUT).map(([name, { label, kind }]): [string, WordedField] => [name, {
    label,
    needs: (value, reason) => {
      if (reason === ViolationReason.MISSING) return "the permit answer needs this.";
      if (name === "maxDisturbedAcresAtOneTime" && value !== "" && Number(value) >= 0) return "this cannot be more than the total acres disturbed.";
      return WRONG[kind](value);
    },
  }]));
  return labelledWords(fields, typed);
}

export interface SiteFormView {
  heading: string;
  action: string;
  submit: string;
  /** Above the heading: the way back. */
  before?: Html;
  /** A line under the heading, e.g. what saving does to the site's answer. */
  intro?: Html;
  cancel?: { href: string; words: string };
}

export function siteForm(view: SiteFormView, token: string, values: Record<string, string>, errors?: FieldErrors): Html {
  return html`${view.before ?? ""}<h1>${view.heading}</h1>
${view.intro ?? ""}
${errorSummary(errors)}
<form method="post" action="${view.action}" novalidate>
${csrfField(token)}
<fieldset><legend>The site</legend>
${input({ name: "name", label: "Site name", hint: "What you call it, e.g. Maple Street subdivision, phase 2.", required: true, maxlength: 200 }, values, errors)}
${input({ name: "address", label: "Address or directions to the site", required: true, maxlength: 500 }, values, errors)}
${input({ name: "operator_name", label: "Operator", hint: "The company or person in control of the work (it goes in the plan).", required: true, maxlength: 200 }, values, errors)}
</fieldset>
<fieldset><legend>What the permit answer needs</legend>
${input({ name: "state", label: label("state"), required: true, maxlength: 2 }, values, errors)}
${select({ name: "activity", label: label("activity"), required: true, options: [["", "Choose one"], ["construction", "Construction"], ["industrial", "Industrial"]] }, values, errors)}
${input({ name: "acres", label: label("acres"), type: "number", step: "any", required: true }, values, errors)}
${input({ name: "maxDisturbedAcresAtOneTime", label: label("maxDisturbedAcresAtOneTime"), hint: "Leave blank if the whole site is open at once.", type: "number", step: "any" }, values, errors)}
${checkbox({ name: "partOfLargerPlan", label: label("partOfLargerPlan") }, values, errors)}
${select({ name: "dischargesToImpairedWater", label: label("dischargesToImpairedWater"), options: TRI_STATE }, values, errors)}
${select({ name: "dischargesToTier2Water", label: label("dischargesToTier2Water"), options: TRI_STATE }, values, errors)}
${checkbox({ name: "aridClimate", label: label("aridClimate") }, values, errors)}
${checkbox({ name: "onTribalLand", label: label("onTribalLand") }, values, errors)}
${checkbox({ name: "federalFacility", label: label("federalFacility") }, values, errors)}
${input({ name: "startDate", label: label("startDate"), type: "date" }, values, errors)}
${input({ name: "endDate", label: label("endDate"), type: "date" }, values, errors)}
</fieldset>
<p class="actions"><button type="submit">${view.submit}</button>${view.cancel ? html` <a class="button secondary" href="${view.cancel.href}">${view.cancel.words}</a>` : ""}</p>
</form>`;
}

/** A stored site as the form's values, to edit it. */
export function formValuesOf(d: SiteDetails): Record<string, string> {
  const i: Partial<SiteInput> = d.input ?? {};
  const tri = (b: boolean | undefined) => (b === undefined ? "" : b ? "yes" : "no");
  const tick = (b: boolean | undefined) => (b ? "true" : "");
  const num = (n: number | undefined) => (n === undefined ? "" : String(n));
  return {
    name: d.name,
    address: d.location?.address ?? "",
    operator_name: d.operator?.name ?? "",
    state: i.state ?? "",
    activity: i.activity ?? "",
    acres: num(i.disturbedAcres),
    maxDisturbedAcresAtOneTime: num(i.maxDisturbedAcresAtOneTime),
    partOfLargerPlan: tick(i.partOfLargerPlan),
    dischargesToImpairedWater: tri(i.dischargesToImpairedWater),
    dischargesToTier2Water: tri(i.dischargesToTier2Water),
    aridClimate: tick(i.aridClimate),
    onTribalLand: tick(i.onTribalLand),
    federalFacility: tick(i.federalFacility),
    startDate: i.startDate ?? "",
    endDate: i.endDate ?? "",
  };
}

/** A field named by the parser or a service, as the form names it. */
export const formName = (field: string): string => {
  const f = field.replace(/^(details\.input\.|details\.|site\.)/, "");
  if (f === "disturbedAcres") return "acres";
  if (f === "location" || f === "location.address") return "address";
  if (f.startsWith("operator")) return "operator_name";
  return f;
};

export interface ReadSite {
  name: string;
  address: string;
  operator: string;
  /** The SiteInput as the parser gives it to the stormwater service. */
  input: ReturnType<typeof parseSite>;
  /** The SiteInput fields as typed, for the words of a refusal. */
  typed: Record<string, string>;
}

/** The form's site, or every error found in it (the parser's and the missing names together). */
export function readSiteForm(form: Record<string, string>): { site: ReadSite } | { errors: FieldErrors } {
  const errors: FieldErrors = new Map();
  const name = (form.name ?? "").trim();
  const address = (form.address ?? "").trim();
  const operator = (form.operator_name ?? "").trim();
  if (!name) errors.set("name", ["Give the site a name."]);
  if (!address) errors.set("address", ["Give the address, or directions that find the site."]);
  if (!operator) errors.set("operator_name", ["Name the operator."]);
  const inputText: Record<string, string> = {};
  for (const k of SITE_INPUT_FIELDS) if (form[k] !== undefined) inputText[k] = form[k];
  let input: ReadSite["input"] | undefined;
  try {
    input = parseSite(inputText, "query");
  } catch (err) {
    const found = fieldErrorsOf(err, formName, siteInputWords(inputText));
    if (!found) throw err;
    for (const [k, v] of found) errors.set(k, v);
  }
  if (errors.size || !input) return { errors };
  return { site: { name, address, operator, input, typed: inputText } };
}

/** Runs a step that may refuse the form's values (a service's InvalidArgument): its errors by field, else its result. */
export async function refusedOr<T>(step: () => Promise<T>, rename: (field: string) => string = formName, words: FieldWords = siteInputWords({})): Promise<{ ok: T } | { errors: FieldErrors }> {
  try {
    return { ok: await step() };
  } catch (err) {
    const found = fieldErrorsOf(err, rename, words);
    if (found) return { errors: found };
    throw err;
  }
}

/** The stormwater answer for the form's site: the same service POST /api/v1/determine asks. */
export function determineSite(deps: AppDeps, site: ReadSite) {
  return refusedOr(async () => (await deps.clients.stormwater.determine({ site: site.input })).determination!, formName, siteInputWords(site.typed));
}
