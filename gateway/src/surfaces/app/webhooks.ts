// GET /app/settings/webhooks: the account's endpoints, each with its status, its delivery log and
// buttons to send a test event, rotate the secret or remove it; and the form that registers one.
// A signing secret is shown once, on the page answering the change that made it, never again.
import type { FastifyInstance, FastifyReply } from "fastify";
import { Code, ConnectError } from "@connectrpc/connect";
import type { WebhookAttempt, WebhookEndpoint } from "@permits/proto/sites/v1/sites";
import type { AppDeps } from "../../deps.js";
import { html, type Html } from "./html.js";
import { chromeOf, page } from "./layout.js";
import { formOf, requireSession, requireWritable, type SignedIn } from "./context.js";
import { checkbox, csrfField, errorSummary, fieldErrorsOf, input, type FieldErrors } from "./form.js";
import { who } from "./site-records.js";

const HTML = "text/html; charset=utf-8";
const PATH = "/app/settings/webhooks";
const TITLE = "Webhooks";

/** The events an endpoint can receive (their names are the API's), in plain words. */
const EVENTS = [
  ["site.rules_changed", "A site's rules changed: a new dataset changes a fact its saved answer or plan relies on"],
  ["site.permit_expiring", "A site's permit expires before the site's end date, or within 60 days"],
  ["inspection.overdue", "An inspection becomes overdue"],
  ["corrective_action.overdue", "A corrective action becomes overdue"],
] as const;
const checkboxName = (event: string) => `event_${event}`;

/** One checkbox per event (each inside its label, so a page may repeat them). */
function eventBoxes(values: Record<string, string>): Html {
  return html`${EVENTS.map(([event, words]) => checkbox({ name: checkboxName(event), label: words, hint: event }, values))}`;
}

/** The events ticked in a form. */
function eventsOf(form: Record<string, string>): string[] {
  return EVENTS.map(([event]) => event).filter((event) => form[checkboxName(event)] === "true");
}

interface Shown {
  /** A secret just made, shown this once. */
  secret?: { url: string; value: string };
  form?: Record<string, string>;
  errors?: FieldErrors;
}

function attemptRow(a: WebhookAttempt): Html {
  const outcome = a.delivered ? "Delivered" : a.retrying ? "Failed, will retry" : "Failed, gave up";
  return html`<tr><td data-label="When">${a.at.replace("T", " ").slice(0, 19)} UTC</td><td data-label="Event">${a.eventType} <span class="muted">${a.eventId}</span></td><td data-label="Attempt">${a.attempt}</td><td data-label="Status">${a.statusCode === 0 ? "no answer" : `HTTP ${a.statusCode}`}: ${outcome}${a.error ? html`<br><span class="muted">${a.error}</span>` : ""}</td><td data-label="Answer"><code>${a.responseExcerpt}</code></td></tr>`;
}

function endpointView(e: WebhookEndpoint, log: readonly WebhookAttempt[], token: string, writable: boolean): Html {
  const button = (action: string, words: string, secondary = true) => html`<form method="post" action="${PATH}/${e.id}/${action}" class="inline">${csrfField(token)}<button type="submit"${secondary ? html` class="secondary"` : ""}>${words}</button></form>`;
  return html`<li id="${e.id}"><h3>${e.url}</h3>
${e.failing ? html`<p class="overdue" role="alert">Failing since ${e.failingSince.slice(0, 16).replace("T", " ")} UTC. ${e.failingReason}</p>` : html`<p>Active.</p>`}
<p>Receives: ${e.events.join(", ")}.${e.previousSecretValidUntil ? html` The previous secret also signs until ${e.previousSecretValidUntil.slice(0, 16).replace("T", " ")} UTC.` : ""}</p>
${writable ? html`<div class="actions">${button("test", "Send a test event", false)}${button("rotate", "Rotate the secret")}${button("delete", "Remove")}</div>
<details><summary>Change the events</summary><form method="post" action="${PATH}/${e.id}/events">${csrfField(token)}${eventBoxes(Object.fromEntries(e.events.map((ev) => [checkboxName(ev), "true"])))}<p><button type="submit" class="secondary">Save the events</button></p></form></details>` : ""}
<details${log.length ? html` open` : ""}><summary>Delivery log${log.length ? ` (latest ${log.length})` : ""}</summary>
${log.length ? html`<table class="stack"><thead><tr><th>When</th><th>Event</th><th>Attempt</th><th>Status</th><th>Answer (first 1 KB)</th></tr></thead><tbody>${log.map(attemptRow)}</tbody></table>` : html`<p>Nothing sent yet.</p>`}</details></li>`;
}

function addForm(token: string, values: Record<string, string>, errors?: FieldErrors): Html {
  return html`<h2>Add an endpoint</h2>
${errorSummary(errors)}
<form method="post" action="${PATH}" novalidate>
${csrfField(token)}
${input({ name: "url", label: "Address (https://…)", hint: "It must be reachable on the internet; private and local addresses are refused.", required: true, maxlength: 2000 }, values, errors)}
<fieldset><legend>Events to send</legend>${errors?.get("events")?.map((m) => html`<span class="field-error" id="events-error">${m}</span>`)}
${eventBoxes(values)}</fieldset>
<p><button type="submit">Add the endpoint</button></p>
</form>`;
}

export function webhookRoutes(app: FastifyInstance, deps: AppDeps): void {
  const { sites } = deps.clients;

  async function show(req: SignedIn, reply: FastifyReply, shown: Shown, status = 200) {
    const token = reply.generateCsrf();
    const writable = !req.appSession.readOnly;
    const { endpoints } = await sites.listWebhookEndpoints(who(req));
    const logs = await Promise.all(endpoints.map((e) => sites.listWebhookAttempts({ ...who(req), endpointId: e.id })));
    const body = html`<h1>${TITLE}</h1>
<p>Your own systems can be told when something happens to your sites: each event you choose is posted as JSON (<code>{"type", "timestamp", "data"}</code>, naming the site and what changed) to your address, signed as the <a href="https://www.standardwebhooks.com/">Standard Webhooks</a> specification says (<code>webhook-id</code>, <code>webhook-timestamp</code>, <code>webhook-signature</code>). A delivery your address does not accept with a 2xx answer is tried again, waiting longer each time, for up to 3 days; then the endpoint is marked failing here.</p>
${shown.secret ? html`<div class="notice" role="status"><p><strong>The signing secret for ${shown.secret.url}</strong>, shown this once: copy it now into the system that checks the signatures.</p><p><code>${shown.secret.value}</code></p></div>` : ""}
<h2>Your endpoints</h2>
${endpoints.length ? html`<ul class="cards">${endpoints.map((e, i) => endpointView(e, logs[i]!.attempts, token, writable))}</ul>` : html`<p>No endpoints yet.</p>`}
${writable ? addForm(token, shown.form ?? {}, shown.errors) : ""}`;
    return reply.code(status).type(HTML).send(page(chromeOf(req, token, TITLE), body));
  }

  app.get(PATH, { preHandler: requireSession }, async (req, reply) => show(req as SignedIn, reply, {}));

  app.post(PATH, { preHandler: [requireWritable, app.csrfProtection] }, async (req, reply) => {
    const r = req as SignedIn;
    const form = formOf(req);
    const url = (form.url ?? "").trim();
    try {
      const created = await sites.createWebhookEndpoint({ ...who(r), url, events: eventsOf(form) });
      return await show(r, reply, { secret: { url: created.endpoint!.url, value: created.signingSecret } });
    } catch (err) {
      let errors = fieldErrorsOf(err);
      if (err instanceof ConnectError && err.code === Code.FailedPrecondition) errors = new Map([["", ["Webhooks are not available on this server yet: its operator has not configured them."]]]);
      if (!errors) throw err;
      return show(r, reply, { form, errors }, 400);
    }
  });

  app.post(`${PATH}/:id/events`, { preHandler: [requireWritable, app.csrfProtection] }, async (req, reply) => {
    const { id } = req.params as { id: string };
    await sites.updateWebhookEndpoint({ ...who(req as SignedIn), endpointId: id, events: eventsOf(formOf(req)) });
    return reply.code(303).header("location", `${PATH}#${id}`).send();
  });

  app.post(`${PATH}/:id/rotate`, { preHandler: [requireWritable, app.csrfProtection] }, async (req, reply) => {
    const r = req as SignedIn;
    const rotated = await sites.rotateWebhookSecret({ ...who(r), endpointId: (req.params as { id: string }).id });
    return show(r, reply, { secret: { url: rotated.endpoint!.url, value: rotated.signingSecret } });
  });

  app.post(`${PATH}/:id/test`, { preHandler: [requireWritable, app.csrfProtection] }, async (req, reply) => {
    const { id } = req.params as { id: string };
    await sites.sendTestWebhook({ ...who(req as SignedIn), endpointId: id });
    return reply.code(303).header("location", `${PATH}#${id}`).send();
  });

  app.post(`${PATH}/:id/delete`, { preHandler: [requireWritable, app.csrfProtection] }, async (req, reply) => {
    await sites.deleteWebhookEndpoint({ ...who(req as SignedIn), endpointId: (req.params as { id: string }).id });
    return reply.code(303).header("location", PATH).send();
  });
}
