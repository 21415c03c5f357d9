// GET /: what the service answers, its two APIs, the app, and where to go next.
import type { FastifyInstance } from "fastify";
import { html } from "./html.js";
import { page } from "./layout.js";

const LANDING = page(
  { title: "Permit determination API" },
  html`<h1>Which permit does your site need, and what does it ask of you?</h1>
<p>This service answers two questions for construction and industrial sites in the United States, citing the permit section behind every answer and marking what has not been checked against the official text as <span class="unverified">Unverified</span>.</p>
<h2>Stormwater permits (construction and industrial)</h2>
<p>Describe a site (state, activity, acres disturbed, a few optional facts) and get whether it needs stormwater permit coverage, which permit governs it, the agency, and what the permit requires: inspections, stabilization, corrective actions, records. <code>POST /api/v1/determine</code> and <code>GET /api/v1/requirements</code>.</p>
<h2>Nationwide permits for work in wetlands and waters (Section 404)</h2>
<p>Describe a project and get which nationwide permits may cover it and whether the Corps must be told before work starts.</p>
<h2>The app for your sites</h2>
<p>With a Stormwater Pro or Scale plan, sign in with your key to keep your sites in one place: a plan document (SWPPP) drafted from each site's answer, for download as Word and PDF; the inspection schedule, with the storm inspections the rain you enter calls for; inspection reports you sign and keep; corrective actions with their deadlines; exports of the records for an inspector from the permitting agency; and, once a site is closed, its records kept read-only until their retention ends.</p>
<p>The service does not inspect your site, does not give legal or engineering advice and does not issue permits. Where your state requires a credentialed preparer, the plan document is a draft for that person to review and sign.</p>
<p class="actions"><a class="button" href="/app">Sign in to the app</a> <a class="button secondary" href="/pricing">Plans and prices</a> <a class="button secondary" href="/docs">API reference</a></p>`,
);

export function landingRoute(app: FastifyInstance): void {
  app.get("/", async (_req, reply) => reply.type("text/html; charset=utf-8").send(LANDING));
}
