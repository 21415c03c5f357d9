// The HTML of checkout: the buy section of /pricing, the success page that shows the keys once,
// and the local provider's confirmation and manage pages. Plain server-rendered forms: no script.
import { KeyKind, Plan, RevealOutcome, SubscriptionStatus, type CheckoutPlan, type RevealCheckoutResponse } from "@permits/proto/entitlement/v1/entitlement";
import { Surface } from "@permits/proto/common/v1/common";

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]);

export const PLAN_NAMES: Record<string, string> = {
  stormwater_pro: "Stormwater Pro",
  stormwater_scale: "Stormwater Scale",
  nwp_pro: "Nationwide Permit (NWP) Pro",
};

export const REISSUE_TEXT =
  "Keys are shown once and never again. Lost them? An NWP Pro key is reissued at POST /recover with the subscription id from your receipt; " +
  "stormwater keys are reissued by the operator of this server (npm run keys), who can revoke the old ones.";

/** What cancelling does to a plan's keys, by the endpoints the plan is for. */
const CANCEL_EFFECT: Record<number, string> = {
  [Surface.STORMWATER]: "the plan's live key (svc_live_…) stops working at once; the free test key (svc_test_…) keeps working",
  [Surface.NWP]: "the NWP Pro key (nwp_…) keeps working, on the free allowance",
};

function page(title: string, body: string, head = ""): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">${head}<title>${esc(title)} - Permit Determination API</title>
<style>body{font-family:system-ui,sans-serif;max-width:50rem;margin:2rem auto;padding:0 1rem;line-height:1.5}code{background:#f3f3f3;padding:.1rem .3rem;word-break:break-all}form{display:inline}button{font-size:1rem;padding:.3rem .8rem}</style>
</head><body>
${body}
<p><a href="/pricing">Pricing</a> · <a href="/docs">API reference</a></p>
</body></html>
`;
}

/** "$49.00 per month"; the amount is the provider's, in minor units. */
export function priceText(p: CheckoutPlan): string {
  if (p.unitAmount === undefined || !p.currency) return p.currency ? "" : "no charge (local test mode)";
  const amount = new Intl.NumberFormat("en-US", { style: "currency", currency: p.currency.toUpperCase() }).format(Number(p.unitAmount) / 100);
  return `${amount} per ${p.interval || "period"}`;
}

/** The buy section of /pricing; `offline` when the plans could not be read (the entitlement service is away). */
export function buySection(plans: CheckoutPlan[] | undefined, localRefused: boolean): string {
  const how = `<p>How keys arrive: after checkout the success page shows your keys once. A stormwater plan gives a live key of the plan (<code>svc_live_…</code>) and a free test key (<code>svc_test_…</code>); NWP Pro gives the NWP Pro key of your subscription (<code>nwp_…</code>). Send a key as <code>Authorization: Bearer &lt;key&gt;</code> or <code>X-API-Key: &lt;key&gt;</code>. ${esc(REISSUE_TEXT)}</p>`;
  if (!plans) return `<section id="buy"><h2>Buy a plan</h2><p>Checkout is temporarily unavailable. Reload this page in a minute.</p>${how}</section>`;
  const rows = plans.map((p) => {
    const name = PLAN_NAMES[p.id] ?? p.id;
    const action = localRefused
      ? "Not sold here: local checkout is served only on a loopback address."
      : p.purchasable
        ? `<form method="post" action="/checkout"><input type="hidden" name="plan" value="${esc(p.id)}"><button type="submit" data-plan="${esc(p.id)}">Buy ${esc(name)}</button></form>`
        : esc(p.unavailableReason);
    return `<tr><td>${esc(name)}</td><td>${esc(p.purchasable ? priceText(p) : "-")}</td><td>${action}</td></tr>`;
  });
  const portal = `<h3>Manage or cancel a subscription</h3>
<form method="post" action="/checkout/portal"><label>A key from your checkout: <input name="api_key" autocomplete="off" size="50" required></label> <button type="submit">Manage subscription</button></form>
<p>Cancelling a stormwater plan: ${CANCEL_EFFECT[Surface.STORMWATER]}. Cancelling NWP Pro: ${CANCEL_EFFECT[Surface.NWP]}.</p>`;
  return `<section id="buy"><h2>Buy a plan</h2>
<table><thead><tr><th>Plan</th><th>Price</th><th></th></tr></thead><tbody>${rows.join("\n")}</tbody></table>
${how}${portal}</section>`;
}

const SURFACE_WORD: Record<number, string> = { [Surface.STORMWATER]: "the stormwater endpoints", [Surface.NWP]: "the nationwide permit (NWP) endpoints" };

export function keyLabel(kind: KeyKind, plan: Plan): string {
  if (kind === KeyKind.LIVE) return `live key (${plan === Plan.SCALE ? "Scale" : "Pro"})`;
  if (kind === KeyKind.TEST) return "test key (free, sandbox answers)";
  return "NWP Pro key";
}

/** The success page: the keys (only when `outcome` is SHOWN), or why there are none. */
export function successHtml(res: RevealCheckoutResponse): string {
  const name = esc(PLAN_NAMES[res.planId] ?? res.planId);
  if (res.outcome === RevealOutcome.NOT_PAID) {
    return page("Payment pending", `<h1>Payment not confirmed yet</h1><p>The payment for ${name} is not confirmed yet. This page reloads itself; your keys are shown here once it is.</p>`, `<meta http-equiv="refresh" content="3">`);
  }
  if (res.outcome !== RevealOutcome.SHOWN) {
    return page("Keys already shown", `<h1>Your keys were already shown</h1><p id="already-shown">The keys of this ${name} purchase were shown once and are not shown again.</p><p>${esc(REISSUE_TEXT)}</p>`);
  }
  const items = res.keys.map(
    (k) => `<li><strong>${esc(keyLabel(k.kind, k.plan))}</strong> for ${esc(SURFACE_WORD[k.surface] ?? "")}:<br><code class="api-key" data-kind="${KeyKind[k.kind].toLowerCase()}">${esc(k.secret)}</code></li>`,
  );
  const first = res.keys.find((k) => k.kind !== KeyKind.TEST) ?? res.keys[0];
  return page(
    "Your keys",
    `<h1>Thank you: here are your keys</h1>
<p><strong>Copy them now: they are shown once.</strong> Only a digest is kept; reloading this page will not show them again.</p>
<ul>${items.join("\n")}</ul>
<p>Send a key as <code>Authorization: Bearer &lt;key&gt;</code> or <code>X-API-Key: &lt;key&gt;</code>. Your subscription id (keep it with your receipt): <code id="subscription-id">${esc(res.subscriptionId)}</code></p>
<p>${esc(REISSUE_TEXT)}</p>
${first ? `<form method="post" action="/checkout/portal"><input type="hidden" name="api_key" value="${esc(first.secret)}"><button type="submit">Manage or cancel the subscription</button></form>` : ""}`,
  );
}

export function localConfirmHtml(sessionId: string, planId: string): string {
  const name = esc(PLAN_NAMES[planId] ?? "the plan");
  return page(
    "Confirm purchase (local)",
    `<h1>Confirm your purchase</h1>
<p>This server runs the local payment provider (<code>PAYMENT_PROVIDER=local</code>): no money moves. Confirming creates an active local subscription to ${name} and issues its keys, as a paid Stripe checkout would.</p>
<form method="post" action="/checkout/local/confirm"><input type="hidden" name="session_id" value="${esc(sessionId)}"><button type="submit" id="confirm">Confirm purchase</button></form>
<p><a href="/pricing">Cancel and go back</a></p>`,
  );
}

const STATUS_WORD: Record<number, string> = {
  [SubscriptionStatus.ACTIVE]: "Active",
  [SubscriptionStatus.TRIALING]: "Active (trial)",
  [SubscriptionStatus.CANCELED]: "Cancelled",
  [SubscriptionStatus.UNSPECIFIED]: "Not confirmed yet",
};

/** A local checkout as its manage page shows it: the plan, what it is for, its subscription's status. */
export interface LocalSubscriptionView {
  sessionId: string;
  planId: string;
  surface: Surface | undefined;
  status: SubscriptionStatus;
}

/** The local manage page: the plan and its status; Cancel only while the subscription runs. */
export function localManageHtml(v: LocalSubscriptionView, justCancelled = false): string {
  const name = esc(PLAN_NAMES[v.planId] ?? v.planId);
  const effect = v.surface === undefined ? undefined : CANCEL_EFFECT[v.surface];
  const running = v.status === SubscriptionStatus.ACTIVE || v.status === SubscriptionStatus.TRIALING;
  const facts = `<p>Plan: <strong id="plan">${name}</strong><br>Status: <strong id="status">${esc(STATUS_WORD[v.status] ?? STATUS_WORD[SubscriptionStatus.UNSPECIFIED])}</strong></p>`;
  const next = running
    ? `${effect ? `<p>Cancelling ends the plan: ${esc(effect)}.</p>` : ""}
<form method="post" action="/checkout/local/cancel"><input type="hidden" name="session_id" value="${esc(v.sessionId)}"><button type="submit" id="cancel">Cancel subscription</button></form>`
    : v.status === SubscriptionStatus.CANCELED
      ? `<p id="cancelled">The subscription is cancelled${effect ? `: ${esc(effect)}` : ""}. Buy again on <a href="/pricing">/pricing</a>.</p>`
      : `<p>The purchase is not confirmed yet, so there is nothing to cancel.</p>`;
  const title = justCancelled ? "Subscription cancelled" : "Manage your subscription";
  return page(
    `${title} (local)`,
    `<h1>${title}</h1>
<p>This server takes no payments (local test mode): this page stands in for Stripe's customer portal.</p>
${facts}
${next}`,
  );
}
