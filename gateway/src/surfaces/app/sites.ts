// Sites: the dashboard (every site with its next inspection due, overdue first), the new-site
// form (name, where it is, the operator, and the SiteInput fields under document 1's names, read
// by the same parser as POST /api/v1/determine), and a site's page.
import type { FastifyInstance, FastifyReply } from "fastify";
import { CorrectiveActionStatus, type Site } from "@permits/proto/sites/v1/sites";
import type { Schedule } from "@permits/swppp";
import { Plan } from "@permits/proto/entitlement/v1/entitlement";
import type { AppDeps } from "../../deps.js";
import { html } from "./html.js";
import { chromeOf, page } from "./layout.js";
import { requireSession, requireWritable, formOf, type AppRequest, type SignedIn } from "./context.js";
import { csrfField, type FieldErrors } from "./form.js";
import { determineSite, readSiteForm, refusedOr, siteForm, type SiteFormView } from "./site-form.js";
import { permitExpiring, siteSchedule } from "@permits/swppp/deadlines";
import { answerBytes, answerOfSnapshot, siteRecords, todayOf, who } from "./site-records.js";
import { determinationView } from "./determination-view.js";
import { attentionItems, attentionView, permitExpiringView, planOutOfDate, regenerateLabel, rulesChangesView } from "./alerts-view.js";
import { scheduleView } from "./schedule-view.js";
import { inspectionsView } from "./inspections-view.js";
import { choosingFrequency, frequencyForm } from "./frequency.js";
import { rainSection } from "./rain.js";
import { closedNotice } from "./site-pages.js";

const HTML = "text/html; charset=utf-8";

const NEW_SITE: SiteFormView = { heading: "Add a site", action: "/app/sites", submit: "Add the site", cancel: { href: "/app", words: "Cancel" } };

/** The earliest inspection the schedule has due: the next routine one, or a storm inspection still open. */
function nextDue(s: Schedule): string | undefined {
  return [s.nextRoutine.due, ...s.stormEvents.filter((e) => e.status === "open").map((e) => e.due)].filter((d): d is string => d !== null).sort()[0];
}

function noDateWords(s: Site): string {
  if (s.closedOn) return `None: closed on ${s.closedOn}.`;
  if (!s.details?.inspectionFrequency) return "Not scheduled yet: choose how often you inspect on the site's page.";
  return "No date yet: the site's page says why.";
}

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
      // A closed site has nothing left to inspect.
      if (s.closedOn) return { s, due: undefined, overdue: 0, attention: needsAttention.has(s.id) };
      const schedule = determination ? siteSchedule(answerOfSnapshot(determination), signedInspections, rainEvents, today, s.details?.inspectionFrequency) : undefined;
      return { s, due: schedule && nextDue(schedule), overdue: (schedule?.overdue.length ?? 0) + overdueCorrectiveActions, attention: needsAttention.has(s.id) };
    });
    // What needs attention first, then overdue, closed sites last, then by the next date due and by name.
    rows.sort((a, b) => Number(b.attention) - Number(a.attention) || Number(b.overdue > 0) - Number(a.overdue > 0) || Number(a.s.closedOn !== undefined) - Number(b.s.closedOn !== undefined) || (a.due ?? "9999").localeCompare(b.due ?? "9999") || a.s.details!.name.localeCompare(b.s.details!.name));
    const plan = r.appSession.plan === Plan.SCALE ? "Scale" : "Pro";
    const body = html`<h1>Your sites</h1>
<p class="muted">Stormwater ${plan} plan${r.appSession.readOnly ? " (cancelled: read-only)" : ""}.</p>
${attentionView(attention)}
${r.appSession.readOnly ? "" : html`<p><a class="button" href="/app/sites/new">Add a site</a></p>`}
${rows.length === 0 ? html`<p>No sites yet. Add one to get its permit answer, a plan document and an inspection schedule.</p>` : html`<table class="stack"><thead><tr><th scope="col">Site</th><th scope="col">Next inspection due</th><th scope="col">Overdue</th></tr></thead><tbody>
${rows.map((x) => html`<tr><td data-label="Site"><a href="/app/sites/${x.s.id}">${x.s.details!.name}</a>${x.s.closedOn ? html` <span class="muted">(closed ${x.s.closedOn})</span>` : ""}</td><td data-label="Next inspection due">${x.due ? html`<span class="nowrap">${x.due}</span>` : html`<span class="muted">${noDateWords(x.s)}</span>`}</td><td data-label="Overdue">${x.overdue > 0 ? html`<span class="overdue">${x.overdue} overdue</span>` : "none"}</td></tr>`)}
</tbody></table>`}`;
    return reply.type(HTML).send(page(chromeOf(r, reply.generateCsrf(), "Your sites"), body));
  };
}

export function siteRoutes(app: FastifyInstance, deps: AppDeps): void {
  const { sites } = deps.clients;

  app.get("/app/sites/new", { preHandler: requireWritable }, async (req, reply) => {
    return reply.type(HTML).send(page(chromeOf(req as SignedIn, reply.generateCsrf(), "Add a site"), siteForm(NEW_SITE, reply.generateCsrf(), {})));
  });

  app.post("/app/sites", { preHandler: [requireWritable, app.csrfProtection] }, async (req, reply) => {
    const r = req as SignedIn;
    const form = formOf(req);
    const refuse = (errors: FieldErrors) => reply.code(400).type(HTML).send(page(chromeOf(r, reply.generateCsrf(), "Add a site"), siteForm(NEW_SITE, reply.generateCsrf(), form, errors)));
    const read = readSiteForm(form);
    if ("errors" in read) return refuse(read.errors);
    const { site } = read;
    const determination = await determineSite(deps, site);
    if ("errors" in determination) return refuse(determination.errors);
    // The site and its answer in one change: a site is never kept without the answer its page shows.
    const details = { name: site.name, input: site.input, location: { address: site.address }, operator: { name: site.operator, role: "operator" }, contacts: [] };
    const created = await refusedOr(async () => (await sites.createSite({ ...who(r), details, answerJson: answerBytes(determination.ok) })).site!);
    if ("errors" in created) return refuse(created.errors);
    return reply.code(303).header("location", `/app/sites/${created.ok.id}`).send();
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
    const latestPlan = rec.plans.reduce<(typeof rec.plans)[number] | undefined>((a, p) => (a && a.version > p.version ? a : p), undefined);
    const plans = rec.plans.length
      ? html`<ul>${rec.plans.map((p) => html`<li>Version ${p.version}, made <span class="nowrap">${p.createdAt.slice(0, 10)}</span>: <a class="nowrap" href="/app/sites/${id}/plans/${p.version}.docx">Word (.docx)</a> · <a href="/app/sites/${id}/plans/${p.version}.pdf">PDF</a></li>`)}</ul>`
      : html`<p>No plan document yet.</p>`;
    // A plan made from an earlier answer (the site was edited since, or the permit data changed) is said to be behind.
    const planBehind = latestPlan && latestPlan.determinationId !== rec.snapshot.id ? html`<p class="notice">Version ${latestPlan.version} was made from an earlier answer for this site: the site's details or the permit data have changed since.${writable ? ` Use “${regenerateLabel(rulesChanges)}” so the plan follows the current answer.` : ""}</p>` : "";
    const schedule = siteSchedule(rec.determination, rec.inspections, rec.rainEvents, today, d.inspectionFrequency);
    const choosing = choosingFrequency(rec.determination, d.inspectionFrequency, writable);
    // What is done on site comes first; closing, which cannot be undone, comes last.
    const actions = writable ? html`<p class="actions"><a class="button" href="/app/sites/${id}/inspections/new">Record an inspection</a> <a class="button secondary" href="/app/sites/${id}/rain-events/new">Enter rain</a></p>` : "";
    const closing = writable
      ? html`<section aria-labelledby="closing"><h2 id="closing">Closing the site</h2><p>Once your notice of termination has been filed, close the site with its date. Before you confirm, the page says until when the records will be kept and why; once closed, the site can no longer change.</p><p><a class="button secondary" href="/app/sites/${id}/close">Close the site</a></p></section>`
      : "";
    const body = html`<h1>${d.name}</h1>
<p>${d.location?.address ?? ""}<br>Operator: ${d.operator?.name ?? ""}${writable ? html`<br><a href="/app/sites/${id}/edit">Edit the site's details</a>` : ""}</p>
${closedNotice(rec.site)}
${rec.site.closedOn ? "" : permitExpiringView(permitExpiring(rec.determination, d.input?.endDate ?? null, today))}
${rulesChangesView(rulesChanges, rec.determination, writable)}
${actions}
<nav aria-label="On this page" class="toc"><a href="#schedule">Schedule</a> <a href="#inspections">Inspections</a> <a href="#rain">Rain</a> <a href="#plans">Plan document</a> <a href="#determination">Permit and requirements</a> <a href="#exports">Records</a></nav>
${rec.site.closedOn ? html`<section aria-labelledby="schedule"><h2 id="schedule">Inspection schedule</h2><p>The site is closed: the app counts no more inspections for it.</p></section>` : scheduleView(schedule, { choiceBelow: choosing })}
${frequencyForm(id, rec.determination, d.inspectionFrequency, token, writable)}
${inspectionsView(id, rec.inspections, open, token, writable, today)}
${rainSection(rec.rainEvents, schedule, choosing)}
<section aria-labelledby="plans"><h2 id="plans">Plan document (SWPPP)</h2>
<p>A draft stormwater pollution prevention plan built from this site's answer, in the sections of EPA's template. What the service cannot know is left as a marked blank for the preparer.</p>
${rec.plans.length ? planOutOfDate(rulesChanges) : ""}
${plans}
${planBehind}
${writable ? html`<form method="post" action="/app/sites/${id}/plans">${csrfField(token)}<button type="submit">${regenerateLabel(rulesChanges)}</button></form>` : ""}</section>
${determinationView(rec.determination)}
<section aria-labelledby="exports"><h2 id="exports">Records for an inspector</h2>
<p>The inspection and corrective-action logs: <a href="/app/sites/${id}/records.csv">spreadsheet (.csv)</a> · <a href="/app/sites/${id}/records.pdf">PDF</a> · <a href="/app/sites/${id}/records.zip">everything (.zip, with a list of file fingerprints to check nothing was changed)</a></p></section>
${closing}`;
    return reply.type(HTML).send(page(chromeOf(r, token, d.name), body));
  });
}

