// Closing a site on the date of its notice of termination, which starts the clock on how long its
// records are kept. GET /app/sites/{id}/close asks for the date; POST /app/sites/{id}/close first
// shows what closing on it means (the sites service works out until when the records are kept and
// on what basis, changing nothing), then, confirmed, closes the site. Refusals (a date after today
// or before the site was entered, a site already closed) are shown on the form.
import type { FastifyInstance } from "fastify";
import { Code, ConnectError } from "@connectrpc/connect";
import type { Site } from "@permits/proto/sites/v1/sites";
import type { AppDeps } from "../../deps.js";
import { html, type Html } from "./html.js";
import { requireWritable } from "./context.js";
import { csrfField, errorSummary, input, type FieldErrors } from "./form.js";
import { refusedOr } from "./site-form.js";
import { backLink, closedNotice, openSiteForm, sendPage, sitePost } from "./site-pages.js";
import { todayOf } from "./site-records.js";

const TITLE = "Close the site";
const FIELD_OF: Record<string, string> = { closedOn: "closed_on" };

function dateForm(site: Site, token: string, values: Record<string, string>, errors?: FieldErrors): Html {
  return html`${backLink(site.id, site.details!.name)}
<h1>${TITLE}</h1>
<p>Close the site once your notice of termination (NOT) has been filed with the permitting agency. The date of the notice starts the clock on how long the site's records must be kept.</p>
<p>A closed site cannot change: no inspection, rain, plan version or edit can be added afterwards. Its records stay readable, and exportable, until their retention ends.</p>
${errorSummary(errors)}
<form method="post" action="/app/sites/${site.id}/close" novalidate>
${csrfField(token)}
${input({ name: "closed_on", label: "Date of the notice of termination", type: "date", required: true }, values, errors)}
<p class="actions"><button type="submit">Continue</button> <a class="button secondary" href="/app/sites/${site.id}">Cancel</a></p>
</form>`;
}

/** What closing on the date means, as the sites service works it out; the form that confirms it. */
function confirmForm(site: Site, preview: Site, token: string): Html {
  return html`${backLink(site.id, site.details!.name)}
<h1>Close ${site.details!.name} on <span class="nowrap">${preview.closedOn}</span>?</h1>
<p><strong>The records will be kept until ${preview.retention!.retainUntil}.</strong> ${preview.retention!.basis}</p>
<p>Once closed, the site cannot change: nothing can be added, edited or signed, and this cannot be undone here.</p>
<form method="post" action="/app/sites/${site.id}/close">
${csrfField(token)}<input type="hidden" name="closed_on" value="${preview.closedOn}"><input type="hidden" name="confirm" value="yes">
<p class="actions"><button type="submit">Close the site</button> <a class="button secondary" href="/app/sites/${site.id}/close">Change the date</a> <a class="button secondary" href="/app/sites/${site.id}">Cancel</a></p>
</form>`;
}

/** A site already closed: the refusal as the form's error, and its closing as it stands. */
function alreadyClosed(site: Site): Html {
  return html`${backLink(site.id, site.details!.name)}<h1>${TITLE}</h1>
${errorSummary(new Map([["", [`This site was already closed on ${site.closedOn}, and a closed site cannot change.`]]]))}
${closedNotice(site)}`;
}

export function siteCloseRoutes(app: FastifyInstance, deps: AppDeps): void {
  const { sites } = deps.clients;

  openSiteForm(app, sites, "/app/sites/:id/close", TITLE, (site, token) => dateForm(site, token, { closed_on: todayOf(deps) }), alreadyClosed);

  app.post("/app/sites/:id/close", { preHandler: [requireWritable, app.csrfProtection] }, async (req, reply) => {
    const { r, id, w, site, form } = await sitePost(sites, req);
    const closedOn = (form.closed_on ?? "").trim();
    if (!closedOn) return sendPage(r, reply, TITLE, (token) => dateForm(site, token, form, new Map([["closed_on", ["Give the date of the notice of termination."]]])), 400);
    const preview = form.confirm !== "yes";
    let answer;
    try {
      answer = await refusedOr(() => sites.closeSite({ ...w, closedOn, preview }), (f) => FIELD_OF[f] ?? f);
    } catch (err) {
      // Closed already (perhaps a moment ago, from another page): said on the form, with the closing as it stands.
      if (!(err instanceof Error && err.name === "ConnectError" && ConnectError.from(err).code === Code.FailedPrecondition)) throw err;
      const { site: now } = await sites.getSite(w);
      return sendPage(r, reply, TITLE, () => alreadyClosed(now!), 409);
    }
    if ("errors" in answer) return sendPage(r, reply, TITLE, (token) => dateForm(site, token, form, answer.errors), 400);
    if (preview) return sendPage(r, reply, TITLE, (token) => confirmForm(site, answer.ok.site!, token));
    return reply.code(303).header("location", `/app/sites/${id}`).send();
  });
}
