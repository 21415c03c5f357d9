// The page every /app screen and the landing page share: head, the header with sign-out when
// signed in, the main content and the footer. The stylesheet is /app/style.css (style.ts).
import { html, type Html } from "./html.js";
import type { SignedIn } from "./context.js";

export interface PageChrome {
  title: string;
  /** The signed-in session's CSRF token, to draw the sign-out button; absent when signed out. */
  signOutToken?: string;
  /** A line under the header, e.g. the read-only notice. */
  banner?: Html;
}

export function page(chrome: PageChrome, body: Html): string {
  const signOut = chrome.signOutToken
    ? html`<form method="post" action="/app/session/end" class="inline"><input type="hidden" name="_csrf" value="${chrome.signOutToken}"><button type="submit" class="link">Sign out</button></form>`
    : html`<a href="/app">Sign in</a>`;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${chrome.title} - Stormwater permits</title>
<link rel="stylesheet" href="/app/style.css"></head>
<body><header><nav aria-label="Main"><a href="/" class="brand">Stormwater permits</a> <a href="/app">Your sites</a> ${chrome.signOutToken ? html`<a href="/app/settings/webhooks">Webhooks</a> ` : ""}${signOut}</nav></header>
${chrome.banner ? html`<p class="banner" role="status">${chrome.banner}</p>` : ""}
<main>
${body}
</main>
<footer><p><a href="/docs">API reference</a> · <a href="/pricing">Pricing</a></p></footer>
</body></html>
`.text;
}

/** The chrome of a signed-in page: sign-out, and the read-only notice after a cancelled plan. */
export function chromeOf(req: SignedIn, token: string, title: string): PageChrome {
  const banner = req.appSession.readOnly ? html`Your plan has been cancelled: your sites are read-only. Records and exports stay available until their retention ends.` : undefined;
  return { title, signOutToken: token, banner };
}

