// Checkout (issue 32): buy a plan on /pricing, get its keys once on the success page, manage it in
// Stripe's customer portal; Stripe's webhook fulfils and cancels. None of these routes is metered
// or under /api/v1. The entitlement service does the work (its checkout RPCs); these routes turn
// forms into calls and answers into pages. The local provider's pages are in local-routes.ts.
import type { AppDeps } from "../../deps.js";
import { Problem } from "../../http/problems.js";
import type { RouteSpec } from "../../http/route-table.js";
import type { CheckoutCatalogue } from "./catalogue.js";
import { baseUrl, formFields, fromThisMachine, goTo, HTML, noStore, queryParam, required, wantsJson } from "./form.js";
import { localCheckoutRoutes } from "./local-routes.js";
import { checkoutRoute as route, formBody, jsonGoTo, REVEAL_SCHEMA } from "./openapi-schemas.js";
import { REISSUE_TEXT, successHtml } from "./pages.js";
import { revealJson } from "./reveal-json.js";
import { checkoutCall as call } from "./rpc-errors.js";

const WEBHOOK_PATH = "/webhooks/stripe";
const SUCCESS_PATH = "/checkout/success";

export function checkoutRoutes(deps: AppDeps, catalogue: CheckoutCatalogue): RouteSpec[] {
  const { entitlement } = deps.clients;
  return [
    route(
      "POST",
      "/checkout",
      {
        summary: "Start checkout for a plan (the Buy buttons of /pricing)",
        description: "Starts a Stripe Checkout Session in subscription mode for the plan's configured price and answers 303 to it. With PAYMENT_PROVIDER=local it leads to a local confirmation page instead (no money moves; loopback only).",
        operationId: "startCheckout",
        body: formBody("plan", "stormwater_pro, stormwater_scale or nwp_pro"),
        success: jsonGoTo("The payment page", { checkout_url: "The payment page (Stripe Checkout, or the local confirmation page).", session_id: "The checkout session id (cs_…)." }),
        redirect: "To the payment page (Location).",
        errors: ["invalid_request", "not_found", "internal"],
        auth: "none",
      },
      async (req, reply) => {
        const plan = required(formFields(req), "plan");
        const read = await catalogue.read();
        if (read && catalogue.localRefused(read.provider)) throw new Problem("not_found", "Local checkout is served only on a loopback address.");
        if (read?.provider === "local" && !fromThisMachine(req)) throw new Problem("not_found", "Local checkout is served only to this machine.");
        const base = baseUrl(deps, req);
        const res = await call(entitlement.startCheckout({ planId: plan, successUrl: `${base}${SUCCESS_PATH}?session_id={CHECKOUT_SESSION_ID}`, cancelUrl: `${base}/pricing` }));
        return goTo(req, reply, res.checkoutUrl, { checkout_url: res.checkoutUrl, session_id: res.sessionId });
      },
    ),
    route(
      "GET",
      SUCCESS_PATH,
      {
        summary: "The checkout success page: the keys, shown once",
        description: `Fulfils the paid session if the webhook has not yet, and shows its keys the first time it is opened; afterwards it says they were shown. ${REISSUE_TEXT} HTML, or JSON with Accept: application/json.`,
        operationId: "getCheckoutSuccess",
        html: true,
        query: { session_id: { description: "The checkout session id (cs_…), as the provider appends it.", required: true, schema: { type: "string" } } },
        success: { status: 200, description: "The keys (once), or why there are none.", schema: REVEAL_SCHEMA },
        errors: ["invalid_request", "not_found", "entitlement_check_unavailable", "internal"],
        auth: "none",
      },
      async (req, reply) => {
        const sessionId = queryParam(req, "session_id");
        noStore(reply);
        // A HEAD (a link checker, a preview) must not spend the one showing of the keys.
        if (req.method === "HEAD") return reply.type(HTML).send("");
        const res = await call(entitlement.revealCheckout({ sessionId }));
        noStore(reply);
        if (wantsJson(req)) return revealJson(req, res);
        return reply.type(HTML).send(successHtml(res));
      },
    ),
    route(
      "POST",
      "/checkout/portal",
      {
        summary: "Manage or cancel a subscription bought at checkout",
        description: "Opens Stripe's customer portal for the subscription a checkout key belongs to (any key the success page showed). With PAYMENT_PROVIDER=local, a local page that can cancel.",
        operationId: "openCustomerPortal",
        body: formBody("api_key", "A key shown at checkout: a stormwater live or test key, or the NWP Pro key."),
        success: jsonGoTo("The customer portal", { url: "Stripe's customer portal for the key's subscription (local mode: the manage page)." }),
        redirect: "To the customer portal (Location).",
        errors: ["invalid_request", "unauthorized", "not_found", "entitlement_check_unavailable", "internal"],
        auth: "none",
      },
      async (req, reply) => {
        const apiKey = required(formFields(req), "api_key");
        const res = await call(entitlement.createPortalSession({ apiKey, returnUrl: `${baseUrl(deps, req)}/pricing` }));
        return goTo(req, reply, res.url, { url: res.url });
      },
    ),
    route(
      "POST",
      WEBHOOK_PATH,
      {
        summary: "Stripe webhook: fulfils paid checkouts, ends cancelled subscriptions",
        description:
          "Verified with the endpoint's signing secret (STRIPE_WEBHOOK_SECRET). checkout.session.completed (and async_payment_succeeded) issues the session's keys unless the success page already did; customer.subscription.deleted, or updated to a status other than active or trialing, revokes the subscription's stormwater live key. 200 once handled (a replay is handled, and issues nothing), 400 on a bad signature, 503 while the key store is away (Stripe retries).",
        operationId: "stripeWebhook",
        body: { type: "object", description: "The Stripe event, byte for byte as Stripe sent it." },
        headers: { "Stripe-Signature": { description: "Stripe's signature of the body.", schema: { type: "string" } } },
        success: {
          status: 200,
          description: "Handled.",
          schema: { type: "object", required: ["received"], properties: { received: { const: true, description: "The event was handled." }, event: { type: "string", description: "Stripe's event id (evt_…)." }, type: { type: "string", description: "Stripe's event type." }, outcome: { type: "string", description: "issued, already issued, revoked N key(s) or ignored" } } },
        },
        errors: ["invalid_request", "not_found", "entitlement_check_unavailable", "internal"],
        auth: "none",
      },
      async (req) => {
        const signature = req.headers["stripe-signature"];
        if (typeof signature !== "string" || signature === "") throw new Problem("invalid_request", "The Stripe-Signature header is missing.");
        const payload = req.body instanceof Buffer ? new Uint8Array(req.body) : new Uint8Array();
        const res = await call(entitlement.handleProviderEvent({ payload, signature }));
        return { received: true, event: res.eventId, type: res.eventType, outcome: res.outcome };
      },
    ),
    ...localCheckoutRoutes(deps, catalogue, SUCCESS_PATH),
  ];
}
