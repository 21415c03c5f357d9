// Rain entered by hand (the date, inches and how it was measured): the form, and the list on the
// site's page with the rain amount that calls for an extra inspection under the schedule the site
// follows. That amount comes from the site's requirements through the schedule, never from here;
// the storm inspections it calls for appear in the schedule itself.
import type { FastifyInstance } from "fastify";
import type { RainEvent } from "@permits/proto/sites/v1/sites";
import type { Schedule } from "@permits/swppp";
import type { AppDeps } from "../../deps.js";
import { html, type Html } from "./html.js";
import { requireWritable } from "./context.js";
import { csrfField, errorSummary, input, labelledWords, type FieldErrors, type WordedField } from "./form.js";
import { ViolationReason } from "@permits/rules";
import { refusedOr } from "./site-form.js";
import { basisView } from "./schedule-view.js";
import { backLink, openSiteForm, sendClosed, sendPage, sitePost } from "./site-pages.js";
import { todayOf } from "./site-records.js";

const FIELD_OF: Record<string, string> = { occurredOn: "occurred_on", inches: "inches", measuredBy: "measured_by" };
/** How it was measured: the most characters the sites service keeps. */
const MEASURED_BY_MAX = 200;

/** The form's fields: each one's label, and, in the form's words, what a refused answer needs. */
const RAIN_FIELDS = {
  occurred_on: { label: "Date of the rain", needs: () => "give a real date, today or before." },
  inches: { label: "Rain (inches)", needs: (typed) => (Number(typed) < 0 ? "give 0 or more, e.g. 0.3." : `${typed} inches is more than this service takes for one day; check the amount (the day's total, e.g. 0.3).`) },
  measured_by: { label: "How it was measured", needs: (_, reason) => (reason === ViolationReason.MISSING ? "say how the rain was measured." : `keep it to ${MEASURED_BY_MAX} characters of plain text.`) },
} satisfies Record<string, WordedField>;

function rainForm(siteId: string, siteName: string, token: string, values: Record<string, string>, errors?: FieldErrors): Html {
  return html`${backLink(siteId, siteName)}
<h1>Enter rain</h1>
<p>Enter each rain as it was measured at or near the site. Where your permit calls for an inspection after rain of a given amount, the site's inspection schedule shows it as due.</p>
${errorSummary(errors)}
<form method="post" action="/app/sites/${siteId}/rain-events" novalidate>
${csrfField(token)}
${input({ name: "occurred_on", label: RAIN_FIELDS.occurred_on.label, type: "date", required: true }, values, errors)}
${input({ name: "inches", label: RAIN_FIELDS.inches.label, hint: "The total for the day, e.g. 0.3.", type: "number", step: "0.01", required: true }, values, errors)}
${input({ name: "measured_by", label: RAIN_FIELDS.measured_by.label, hint: "e.g. rain gauge on site, or the name of the weather station.", required: true, maxlength: MEASURED_BY_MAX }, values, errors)}
<p class="actions"><button type="submit">Save the rain</button> <a class="button secondary" href="/app/sites/${siteId}#rain">Cancel</a></p>
</form>`;
}

/** What the form itself can tell: a missing field, or inches that are not a number. */
function readRain(form: Record<string, string>): { occurredOn: string; inches: number; measuredBy: string } | FieldErrors {
  const errors: FieldErrors = new Map();
  const occurredOn = (form.occurred_on ?? "").trim();
  const inchesText = (form.inches ?? "").trim();
  const measuredBy = (form.measured_by ?? "").trim();
  const inches = Number(inchesText);
  if (!occurredOn) errors.set("occurred_on", ["Give the date of the rain."]);
  if (!inchesText || !Number.isFinite(inches)) errors.set("inches", ["Give the rain as a number of inches, e.g. 0.3."]);
  if (!measuredBy) errors.set("measured_by", ["Say how the rain was measured."]);
  return errors.size ? errors : { occurredOn, inches, measuredBy };
}

/** The storm trigger of the schedule followed, in words with its source; `choosing`: no frequency chosen yet among the permit's. */
function triggerWords(s: Schedule, choosing: boolean): Html {
  const t = s.stormTrigger;
  if (t) return html`<p>Rain of <strong>${t.inches} inches or more</strong> calls for an extra inspection${t.withinHours !== null ? html` within <strong>${t.withinHours} hours</strong>` : ""}; once entered here, it is listed under Inspection schedule.${basisView(t.basis)}</p>`;
  if (choosing) return html`<p>Whether rain calls for an extra inspection depends on the inspection frequency you follow: choose it under “How often you inspect” above.</p>`;
  return html`<p>This service holds no rain amount that calls for an extra inspection under the schedule you follow. If your permit sets one, follow your permit.</p>`;
}

/** The Rain section of the site's page (its "Enter rain" is at the top of the page, with "Record an inspection"). */
export function rainSection(rain: readonly RainEvent[], schedule: Schedule, choosing: boolean): Html {
  const newest = [...rain].reverse();
  return html`<section aria-labelledby="rain"><h2 id="rain">Rain</h2>
${triggerWords(schedule, choosing)}
${newest.length
    ? html`<table class="stack"><caption class="visually-hidden">Rain entered for this site, newest first</caption><thead><tr><th scope="col">Date</th><th scope="col">Rain</th><th scope="col">How it was measured</th></tr></thead><tbody>
${newest.map((e) => html`<tr><td data-label="Date"><span class="nowrap">${e.occurredOn}</span></td><td data-label="Rain">${e.inches} in.</td><td data-label="How it was measured">${e.measuredBy}</td></tr>`)}
</tbody></table>`
    : html`<p>No rain entered yet.</p>`}</section>`;
}

export function rainRoutes(app: FastifyInstance, deps: AppDeps): void {
  const { sites } = deps.clients;

  openSiteForm(app, sites, "/app/sites/:id/rain-events/new", "Enter rain", (site, token) => rainForm(site.id, site.details!.name, token, { occurred_on: todayOf(deps) }));

  app.post("/app/sites/:id/rain-events", { preHandler: [requireWritable, app.csrfProtection] }, async (req, reply) => {
    const { r, id, w, site, form } = await sitePost(sites, req);
    if (site.closedOn) return sendClosed(r, reply, site, "Enter rain");
    const refuse = (errors: FieldErrors) => sendPage(r, reply, "Enter rain", (token) => rainForm(id, site.details!.name, token, form, errors), 400);
    const rain = readRain(form);
    if (rain instanceof Map) return refuse(rain);
    const added = await refusedOr(() => sites.addRainEvent({ ...w, ...rain }), (f) => FIELD_OF[f] ?? f, labelledWords(RAIN_FIELDS, form));
    if ("errors" in added) return refuse(added.errors);
    return reply.code(303).header("location", `/app/sites/${id}#rain`).send();
  });
}
