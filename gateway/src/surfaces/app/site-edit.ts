// Editing a site: GET /app/sites/{id}/edit is the site form filled with what is stored; POST
// /app/sites/{id} reads it with the same parser as a new site, works the permit answer out again
// and stores it with the details in one change, as a new determination snapshot. The earlier
// snapshot stays as it was (the sites service keeps every one), with the plan versions made from it.
import type { FastifyInstance } from "fastify";
import type { Site } from "@permits/proto/sites/v1/sites";
import type { AppDeps } from "../../deps.js";
import { html } from "./html.js";
import { requireWritable } from "./context.js";
import type { FieldErrors } from "./form.js";
import { determineSite, formValuesOf, readSiteForm, refusedOr, siteForm, type SiteFormView } from "./site-form.js";
import { frequencyStillOffered } from "./frequency.js";
import { backLink, openSiteForm, sendClosed, sendPage, sitePost } from "./site-pages.js";
import { answerBytes } from "./site-records.js";

function editView(site: Site): SiteFormView {
  return {
    heading: `Edit ${site.details!.name}`,
    action: `/app/sites/${site.id}`,
    submit: "Save the changes",
    before: backLink(site.id, site.details!.name),
    intro: html`<p>Saving works the permit answer out again from these details. The earlier answer is kept as it was, and so are the plan versions made from it: make a new plan version afterwards so the plan follows the new answer.</p>`,
    cancel: { href: `/app/sites/${site.id}`, words: "Cancel" },
  };
}

export function siteEditRoutes(app: FastifyInstance, deps: AppDeps): void {
  const { sites } = deps.clients;

  openSiteForm(app, sites, "/app/sites/:id/edit", "Edit the site", (site, token) => siteForm(editView(site), token, formValuesOf(site.details!)));

  app.post("/app/sites/:id", { preHandler: [requireWritable, app.csrfProtection] }, async (req, reply) => {
    const { r, id, w, site, form } = await sitePost(sites, req);
    if (site.closedOn) return sendClosed(r, reply, site, "Edit the site");
    const refuse = (errors: FieldErrors) => sendPage(r, reply, "Edit the site", (token) => siteForm(editView(site), token, form, errors), 400);
    const read = readSiteForm(form);
    if ("errors" in read) return refuse(read.errors);
    const determined = await determineSite(deps, read.site);
    if ("errors" in determined) return refuse(determined.errors);
    const old = site.details!;
    const location = old.location;
    const operator = old.operator;
    const details = {
      contacts: old.contacts,
      name: read.site.name,
      input: read.site.input,
      location: { address: read.site.address, latitude: location?.latitude, longitude: location?.longitude },
      operator: { name: read.site.operator, role: operator?.role || "operator", company: operator?.company, email: operator?.email, phone: operator?.phone },
      inspectionFrequency: frequencyStillOffered(determined.ok, old.inspectionFrequency),
    };
    // The details and their answer in one change: a new snapshot unless it is the latest one byte for byte.
    const updated = await refusedOr(() => sites.updateSite({ ...w, details, answerJson: answerBytes(determined.ok) }));
    if ("errors" in updated) return refuse(updated.errors);
    return reply.code(303).header("location", `/app/sites/${id}`).send();
  });
}
