// How often a site is inspected: the operator picks one of the frequencies the site's permit
// offers (its inspection.frequency.option* requirements), or, where the service holds none for the
// permit, enters the one their permit sets; the schedule follows the choice and shows whose it is.
import type { FastifyInstance } from "fastify";
import type { Determination } from "@permits/proto/stormwater/v1/stormwater";
import { create } from "@bufbuild/protobuf";
import { InspectionFrequencySchema, type InspectionFrequency } from "@permits/proto/sites/v1/sites";
import type { AppDeps } from "../../deps.js";
import { html, type Html } from "./html.js";
import { chromeOf, page } from "./layout.js";
import { formOf, requireWritable, type SignedIn } from "./context.js";
import { csrfField, input } from "./form.js";
import { answerOfSnapshot, who } from "./site-records.js";

const OPTION = /^inspection\.frequency\.option\d+$/;

function optionsOf(d: Determination) {
  return d.requirements.filter((r) => OPTION.test(r.id));
}

/** Whether the page asks the operator to choose among the permit's frequencies (none chosen yet). */
export function choosingFrequency(d: Determination, current: InspectionFrequency | undefined, writable: boolean): boolean {
  return writable && !current && optionsOf(d).length > 0;
}

/** The frequency chosen, if the answer still offers it (a site edited onto another permit chooses again). */
export function frequencyStillOffered(d: Determination, current: InspectionFrequency | undefined): InspectionFrequency | undefined {
  const options = optionsOf(d).map((o) => o.id);
  if (current?.optionId) return options.includes(current.optionId) ? current : undefined;
  return current?.everyDays !== undefined && options.length === 0 ? current : undefined;
}

export function frequencyForm(siteId: string, d: Determination, current: InspectionFrequency | undefined, token: string, writable: boolean): Html {
  if (!writable) return html``;
  const options = optionsOf(d);
  const choices = options.length
    ? html`<fieldset><legend>Which of your permit's inspection frequencies do you follow?</legend>
${options.map((o) => html`<label><input type="radio" name="option_id" value="${o.id}"${current?.optionId === o.id ? html` checked` : ""}> ${o.label} <span class="hint">${o.detail}</span></label>`)}</fieldset>`
    : html`<p>This service holds no inspection frequency for your permit. Enter the one your permit sets; the schedule will follow it and show it as yours.</p>
${input({ name: "every_days", label: "Inspect every this many days", type: "number", step: "1" }, { every_days: current?.everyDays === undefined ? "" : String(current.everyDays) })}`;
  return html`<details${current ? "" : html` open`}><summary>How often you inspect</summary>
<form method="post" action="/app/sites/${siteId}/frequency">${csrfField(token)}
${choices}
<p><button type="submit" class="secondary">Save how often you inspect</button></p></form></details>`;
}

export function frequencyRoutes(app: FastifyInstance, deps: AppDeps): void {
  const { sites } = deps.clients;
  app.post("/app/sites/:id/frequency", { preHandler: [requireWritable, app.csrfProtection] }, async (req, reply) => {
    const r = req as SignedIn;
    const { id } = req.params as { id: string };
    const w = { ...who(r), siteId: id };
    const form = formOf(req);
    const [{ site }, det] = await Promise.all([sites.getSite(w), sites.getDetermination(w)]);
    const options = optionsOf(answerOfSnapshot(det.determination!)).map((o) => o.id);
    const days = Number((form.every_days ?? "").trim());
    let chosen: { optionId: string; everyDays?: number } | undefined;
    if (options.length && options.includes(form.option_id ?? "")) chosen = { optionId: form.option_id };
    else if (!options.length && Number.isInteger(days) && days >= 1 && days <= 90) chosen = { optionId: "", everyDays: days };
    if (!chosen) {
      const words = options.length ? "Choose one of the frequencies your permit offers." : "Enter a whole number of days from 1 to 90, as your permit sets.";
      return reply.code(400).type("text/html; charset=utf-8").send(page(chromeOf(r, reply.generateCsrf(), "Not saved"), html`<h1>Not saved</h1><p>${words} Nothing was changed.</p><p><a href="/app/sites/${id}#schedule">Back to the site</a></p>`));
    }
    await sites.updateSite({ ...w, details: { ...site!.details!, inspectionFrequency: create(InspectionFrequencySchema, chosen) } });
    return reply.code(303).header("location", `/app/sites/${id}#schedule`).send();
  });
}
