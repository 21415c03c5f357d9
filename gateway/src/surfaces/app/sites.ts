// Sites: the dashboard (every site with its next inspection due, overdue first), the new-site
// form (name, where it is, the operator, and the SiteInput fields under document 1's names, read
// by the same parser as POST /api/v1/determine), and a site's page.
import type { FastifyInstance, FastifyReply } from "fastify";
import { CorrectiveActionStatus } from "@permits/proto/sites/v1/sites";
import { Plan } from "@permits/proto/entitlement/v1/entitlement";
import type { AppDeps } from "../../deps.js";
import { parseSite } from "../stormwater/routes.js";
import { html, type Html } from "./html.js";
import { chromeOf, page } from "./layout.js";
import { requireSession, requireWritable, formOf, type AppRequest, type SignedIn } from "./context.js";
import { checkbox, csrfField, errorSummary, fieldErrorsOf, input, select, type FieldErrors } from "./form.js";
import { permitExpiring, siteSchedule } from "@permits/swppp/deadlines";
import { answerBytes, answerOfSnapshot, siteRecords, todayOf, who } from "./site-records.js";
import { determinationView } from "./determination-view.js";
import { attentionItems, attentionView, permitExpiringView, planOutOfDate, regenerateLabel, rulesChangesView } from "./alerts-view.js";
import { scheduleView } from "./schedule-view.js";
import { inspectionsView } from "./inspections-view.js";
import { frequencyForm } from "./frequency.js";

const HTML = "text/html; charset=utf-8";
/** The SiteInput fields the form carries, under document 1's names. */
const SITE_INPUT_FIELDS = ["state", "activity", "acres", "maxDisturbedAcresAtOneTime", "partOfLargerPlan", "dischargesToImpairedWater", "dischargesToTier2Water", "aridClimate", "onTribalLand", "federalFacility", "startDate", "endDate"] as const;
const TRI_STATE = [["", "Not checked yet"], ["yes", "Yes"], ["no", "No"]] as const;

function newSiteForm(token: string, values: Record<string, string>, errors?: FieldErrors): Html {
  return html`<h1>Add a site</h1>
${errorSummary(errors)}
<form method="post" action="/app/sites" novalidate>
${csrfField(token)}
<fieldset><legend>The site</legend>
${input({ name: "name", label: "Site name", hint: "What you call it, e.g. Maple Street subdivision, phase 2.", required: true, maxlength: 200 }, values, errors)}
${input({ name: "address", label: "Address or directions to the site", required: true, maxlength: 500 }, values, errors)}
${input({ name: "operator_name", label: "Operator", hint: "The company or person in control of the work (it goes in the plan).", required: true, maxlength: 200 }, values, errors)}
</fieldset>
<fieldset><legend>What the permit answer needs</legend>
${input({ name: "state", label: "State (two letters, e.g. TX)", required: true, maxlength: 2 }, values, errors)}
${select({ name: "activity", label: "Activity", required: true, options: [["", "Choose one"], ["construction", "Construction"], ["industrial", "Industrial"]] }, values, errors)}
${input({ name: "acres", label: "Total acres disturbed over the whole project", type: "number", step: "any", required: true }, values, errors)}
${input({ name: "maxDisturbedAcresAtOneTime", label: "Most acres open at any one time", hint: "Leave blank if the whole site is open at once.", type: "number", step: "any" }, values, errors)}
${checkbox({ name: "partOfLargerPlan", label: "Part of a larger common plan of development or sale" }, values, errors)}
${select({ name: "dischargesToImpairedWater", label: "Does it drain to a water impaired for sediment or nutrients?", options: TRI_STATE }, values, errors)}
${select({ name: "dischargesToTier2Water", label: "Does it drain to a Tier 2, 2.5 or 3 water?", options: TRI_STATE }, values, errors)}
${checkbox({ name: "aridClimate", label: "Arid, semi-arid or drought-stricken area" }, values, errors)}
${checkbox({ name: "onTribalLand", label: "On tribal land (Indian country)" }, values, errors)}
${checkbox({ name: "federalFacility", label: "A federal facility" }, values, errors)}
${input({ name: "startDate", label: "Start date", type: "date" }, values, errors)}
${input({ name: "endDate", label: "End date", type: "date" }, values, errors)}
</fieldset>
<p><button type="submit">Add the site</button></p>
</form>`;
}

/** The SiteInput of the form: only document 1's fields, as query text (the tri-state "" = not stated). */
function siteInputOf(form: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of SITE_INPUT_FIELDS) if (form[k] !== undefined) out[k] = form[k];
  return out;
}

const formName = (field: string) => {
  const f = field.replace(/^(details\.input\.|details\.|site\.)/, "");
  if (f === "disturbedAcres") return "acres";
  if (f === "location" || f === "location.address") return "address";
  if (f.startsWith("operator")) return "operator_name";
  return f;
};

export function dashboard(deps: AppDeps) {
  const { sites } = deps.clients;
  return async (req: AppRequest, reply: FastifyReply) => {
    const r = req as SignedIn;
    const today = todayOf(deps);
    // One call for every site and its records; the schedules are worked out here.
    const list = (await sites.listSitesForDashboard({ ...who(r), asOf: today })).sites;
    const attention = attentionItems(list, today);
    const needsAttention = new Set(attention.map((i) => i.siteId));
    const rows = list.map(({ site, determination, signedInspections, rainEvents, overdueCorrectiveActions }) => {
      const s = site!;
      const schedule = determination ? siteSchedule(answerOfSnapshot(determination), signedInspections, rainEvents, today, s.details?.inspectionFrequency) : undefined;
      return { s, due: schedule?.nextRoutine.due, overdue: (schedule?.overdue.length ?? 0) + overdueCorrectiveActions, attention: needsAttention.has(s.id) };
    });
    rows.sort((a, b) => Number(b.attention) - Number(a.attention) || Number(b.overdue > 0) - Number(a.overdue > 0) || (a.due ?? "9999").localeCompare(b.due ?? "9999") || a.s.details!.name.localeCompare(b.s.details!.name));
    const plan = r.appSession.plan === Plan.SCALE ? "Scale" : "Pro";
    const body = html`<h1>Your sites</h1>
<p class="muted">Stormwater ${plan} plan${r.appSession.readOnly ? " (cancelled: read-only)" : ""}.</p>
${attentionView(attention)}
${r.appSession.readOnly ? "" : html`<p><a class="button" href="/app/sites/new">Add a site</a></p>`}
${rows.length === 0 ? html`<p>No sites yet. Add one to get its permit answer, a plan document and an inspection schedule.</p>` : html`<table class="stack"><thead><tr><th>Site</th><th>Next inspection due</th><th>Overdue</th></tr></thead><tbody>
${rows.map((x) => html`<tr><td data-label="Site"><a href="/app/sites/${x.s.id}">${x.s.details!.name}</a>${x.s.closedOn ? html` <span class="muted">(closed ${x.s.closedOn})</span>` : ""}</td><td data-label="Next inspection due">${x.due ?? html`<span class="muted">Not scheduled yet: say how often you inspect on the site's page.</span>`}</td><td data-label="Overdue">${x.overdue > 0 ? html`<span class="overdue">${x.overdue} overdue</span>` : "none"}</td></tr>`)}
</tbody></table>`}`;
    return reply.type(HTML).send(page(chromeOf(r, reply.generateCsrf(), "Your sites"), body));
  };
}

export function siteRoutes(app: FastifyInstance, deps: AppDeps): void {
  const { sites, stormwater } = deps.clients;

  app.get("/app/sites/new", { preHandler: requireWritable }, async (req, reply) => {
    return reply.type(HTML).send(page(chromeOf(req as SignedIn, reply.generateCsrf(), "Add a site"), newSiteForm(reply.generateCsrf(), {})));
  });

  app.post("/app/sites", { preHandler: [requireWritable, app.csrfProtection] }, async (req, reply) => {
    const r = req as SignedIn;
    const form = formOf(req);
    const refuse = (errors: FieldErrors) => reply.code(400).type(HTML).send(page(chromeOf(r, reply.generateCsrf(), "Add a site"), newSiteForm(reply.generateCsrf(), form, errors)));
    const errors: FieldErrors = new Map();
    const name = (form.name ?? "").trim();
    const address = (form.address ?? "").trim();
    const operator = (form.operator_name ?? "").trim();
    if (!name) errors.set("name", ["Give the site a name."]);
    if (!address) errors.set("address", ["Give the address, or directions that find the site."]);
    if (!operator) errors.set("operator_name", ["Name the operator."]);
    let site;
    try {
      site = parseSite(siteInputOf(form), "query");
    } catch (err) {
      for (const [k, v] of fieldErrorsOf(err, formName) ?? []) errors.set(k, v);
    }
    if (errors.size || !site) return refuse(errors);
    let determination;
    try {
      determination = (await stormwater.determine({ site })).determination!;
    } catch (err) {
      const found = fieldErrorsOf(err, formName);
      if (found) return refuse(found);
      throw err;
    }
    let created;
    try {
      created = (await sites.createSite({ ...who(r), details: { name, input: site, location: { address }, operator: { name: operator, role: "operator" }, contacts: [] } })).site!;
    } catch (err) {
      const found = fieldErrorsOf(err, formName);
      if (found) return refuse(found);
      throw err;
    }
    await sites.saveDetermination({ ...who(r), siteId: created.id, answerJson: answerBytes(determination) });
    return reply.code(303).header("location", `/app/sites/${created.id}`).send();
  });

  app.get("/app/sites/:id", { preHandler: requireSession }, async (req, reply) => {
    const r = req as SignedIn;
    const { id } = req.params as { id: string };
    const [rec, { rulesChanges }] = await Promise.all([siteRecords(sites, r, id), sites.listRulesChanges({ ...who(r), siteId: id })]);
    const token = reply.generateCsrf();
    const today = todayOf(deps);
    const d = rec.site.details!;
    const writable = !r.appSession.readOnly && !rec.site.closedOn;
    const open = rec.correctiveActions.filter((c) => c.status === CorrectiveActionStatus.OPEN);
    const plans = rec.plans.length
      ? html`<ul>${rec.plans.map((p) => html`<li>Version ${p.version}, made ${p.createdAt.slice(0, 10)}: <a href="/app/sites/${id}/plans/${p.version}.docx">Word (.docx)</a> · <a href="/app/sites/${id}/plans/${p.version}.pdf">PDF</a></li>`)}</ul>`
      : html`<p>No plan document yet.</p>`;
    const body = html`<h1>${d.name}</h1>
<p>${d.location?.address ?? ""}<br>Operator: ${d.operator?.name ?? ""}${rec.site.closedOn ? html`<br><strong>Closed on ${rec.site.closedOn}.</strong> ${rec.site.retention?.basis ?? ""}` : ""}</p>
${rec.site.closedOn ? "" : permitExpiringView(permitExpiring(rec.determination, d.input?.endDate ?? null, today))}
${rulesChangesView(rulesChanges, rec.determination, writable)}
${determinationView(rec.determination)}
${scheduleView(siteSchedule(rec.determination, rec.inspections, rec.rainEvents, today, d.inspectionFrequency))}
${frequencyForm(id, rec.determination, d.inspectionFrequency, token, writable)}
<section aria-labelledby="plans"><h2 id="plans">Plan document (SWPPP)</h2>
<p>A draft stormwater pollution prevention plan built from this site's answer, in the sections of EPA's template. What the service cannot know is left as a marked blank for the preparer.</p>
${rec.plans.length ? planOutOfDate(rulesChanges) : ""}
${plans}
${writable ? html`<form method="post" action="/app/sites/${id}/plans">${csrfField(token)}<button type="submit">${regenerateLabel(rulesChanges)}</button></form>` : ""}</section>
${inspectionsView(id, rec.inspections, open, token, writable, today)}
<section aria-labelledby="exports"><h2 id="exports">Records for an inspector</h2>
<p>The inspection and corrective-action logs: <a href="/app/sites/${id}/records.csv">spreadsheet (.csv)</a> · <a href="/app/sites/${id}/records.pdf">PDF</a> · <a href="/app/sites/${id}/records.zip">everything (.zip, with a list of file fingerprints to check nothing was changed)</a></p></section>`;
    return reply.type(HTML).send(page(chromeOf(r, token, d.name), body));
  });
}

