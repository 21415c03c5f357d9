// What the pages about one site share: the link back to it, sending a page, and the refusal of a
// form on a closed site (a closed site cannot change; the sites service refuses too).
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Site } from "@permits/proto/sites/v1/sites";
import { html, type Html } from "./html.js";
import { chromeOf, page } from "./layout.js";
import { formOf, requireWritable, type SignedIn } from "./context.js";
import { who, type SitesClient } from "./site-records.js";

export function backLink(siteId: string, name: string): Html {
  return html`<p><a href="/app/sites/${siteId}">← ${name}</a></p>`;
}

export function sendPage(r: SignedIn, reply: FastifyReply, title: string, body: (token: string) => Html, status = 200, token = reply.generateCsrf()) {
  return reply.code(status).type("text/html; charset=utf-8").send(page(chromeOf(r, token, title), body(token)));
}

/** The notice on a closed site's pages: since when, until when its records are kept and why. */
export function closedNotice(site: Site): Html {
  if (!site.closedOn) return html``;
  return html`<div class="notice closed" role="note"><p><strong>Closed on ${site.closedOn}</strong> (the date of the notice of termination). A closed site cannot change: nothing can be added, edited or signed, and its records stay readable and exportable.</p>
<p><strong>Records kept until ${site.retention?.retainUntil ?? "its retention ends"}.</strong> ${site.retention?.basis ?? ""}</p></div>`;
}

/** A form's page asked for a closed site: why nothing can be changed, and the way back. */
export function sendClosed(r: SignedIn, reply: FastifyReply, site: Site, title: string) {
  return sendPage(r, reply, title, () => html`${backLink(site.id, site.details!.name)}<h1>${title}</h1>${closedNotice(site)}`, 409);
}

/**
 * Before a POST that changes a record of a site (a stale page's, say): once the site is closed,
 * its closed notice with 409 and nothing sent on. The sites service refuses too, but its refusal
 * reads as a signed record's, whose advice (amend it) a closed site refuses as well.
 */
export function refuseIfClosed(sites: SitesClient, title: string) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const r = req as SignedIn;
    const { site } = await sites.getSite({ ...who(r), siteId: (req.params as { id: string }).id });
    if (site!.closedOn) return sendClosed(r, reply, site!, title);
  };
}

/**
 * GET of a form that changes an open site (every such form is drawn through here): the account's
 * site (another account's is NotFound), the form drawn from it, or, once the site is closed,
 * `whenClosed` (by default the closed notice) with 409.
 */
export function openSiteForm(app: FastifyInstance, sites: SitesClient, url: string, title: string, form: (site: Site, token: string, r: SignedIn) => Html | Promise<Html>, whenClosed?: (site: Site) => Html): void {
  app.get(url, { preHandler: requireWritable }, async (req, reply) => {
    const r = req as SignedIn;
    const { site } = await sites.getSite({ ...who(r), siteId: (req.params as { id: string }).id });
    if (site!.closedOn) return whenClosed ? sendPage(r, reply, title, () => whenClosed(site!), 409) : sendClosed(r, reply, site!, title);
    const token = reply.generateCsrf();
    const body = await form(site!, token, r);
    return sendPage(r, reply, title, () => body, 200, token);
  });
}

/** What a POST about one site starts from: who asks, the site (another account's is NotFound) and the form. */
export async function sitePost(sites: SitesClient, req: FastifyRequest) {
  const r = req as SignedIn;
  const id = (req.params as { id: string }).id;
  const w = { ...who(r), siteId: id };
  const { site } = await sites.getSite(w);
  return { r, id, w, site: site!, form: formOf(req) };
}
