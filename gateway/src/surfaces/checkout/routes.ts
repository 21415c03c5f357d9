// Checkout (issue 32): buy a plan on /pricing, get its keys once on the success page, manage it in
// Stripe's customer portal; Stripe's webhook fulfils and cancels. None of these routes is metered
// or under /api/v1. The entitlement service does the work (its checkout RPCs); these routes turn
// forms into calls and answers into pages.
import { Code, ConnectError } from "@connectrpc/connect";
import accepts from "accepts";
import type { FastifyReply, FastifyRequest } from "fastify";
import { isLoopback } from "@permits/rpc";
import { KeyKind, Plan, RevealOutcome, type CheckoutPlan, type RevealCheckoutResponse } from "@permits/proto/entitlement/v1/entitlement";
import { Surface } from "@permits/proto/common/v1/common";
import type { AppDeps } from "../../deps.js";
import { Problem } from "../../http/problems.js";
import type { RouteSpec } from "../../http/route-table.js";
import { localConfirmHtml, localManageHtml, REISSUE_TEXT, successHtml } from "./pages.js";

export const WEBHOOK_PATH = "/webhooks/stripe";
/** Checkout's operations in the OpenAPI document: answers that need a paid session or a Stripe signature, so no generated example. */
export const CHECKOUT_TAG = "Checkout";
export const SUCCESS_PATH = "/checkout/success";

const HTML = "text/html; charset=utf-8";

/** The plans as the entitlement service sells them, read once it answers (retried until then). */
export class CheckoutCatalogue {
  private loaded?: { provider: string; plans: CheckoutPlan[] };
  constructor(
    private readonly deps: AppDeps,
    /** Local checkout gives keys away: only a gateway bound to loopback serves it. */
    readonly loopbackOnly: boolean,
  ) {}

  async read(): Promise<{ provider: string; plans: CheckoutPlan[] } | undefined> {
    if (this.loaded) return this.loaded;
    try {
      const res = await this.deps.clients.entitlement.getCheckoutPlans({});
      this.loaded = { provider: res.provider, plans: res.plans };
      return this.loaded;
    } catch (e) {
      this.deps.logger.warn({ err: { name: (e as Error).name, code: (e as ConnectError).code } }, "checkout plans could not be read");
      return undefined;
    }
  }

  /** Whether the local provider's pages are refused here (non-loopback HOST). */
  localRefused(provider: string | undefined): boolean {
    return provider === "local" && !this.loopbackOnly;
  }
}

/** The body of a form post (urlencoded) or a JSON one, as string fields. */
function formFields(req: FastifyRequest): Record<string, string> {
  const raw = req.body instanceof Buffer ? req.body.toString("utf8") : "";
  const type = String(req.headers["content-type"] ?? "");
  if (type.startsWith("application/json")) {
    let v: unknown;
    try {
      v = JSON.parse(raw);
    } catch {
      throw new Problem("invalid_json", "The request body is not valid JSON.");
    }
    if (typeof v !== "object" || v === null || Array.isArray(v)) throw new Problem("invalid_request", "The body must be a JSON object.");
    return Object.fromEntries(Object.entries(v).filter(([, x]) => typeof x === "string")) as Record<string, string>;
  }
  return Object.fromEntries(new URLSearchParams(raw));
}

function required(fields: Record<string, string>, name: string): string {
  const v = fields[name]?.trim();
  if (!v) throw new Problem("invalid_request", `${name} is required.`, { fields: [{ field: name, message: "required" }] });
  return v;
}

function queryParam(req: FastifyRequest, name: string): string {
  const v = (req.query as Record<string, unknown>)[name];
  if (typeof v !== "string" || v === "") throw new Problem("invalid_request", `The query parameter ${name} is required.`, { fields: [{ field: name, message: "required" }] });
  return v;
}

/** PUBLIC_URL when set; otherwise this request's own origin (Host, and the proxy's protocol when trusted). */
function baseUrl(deps: AppDeps, req: FastifyRequest): string {
  const configured = deps.config.PUBLIC_URL as string | undefined;
  return configured ? configured.replace(/\/$/, "") : `${req.protocol}://${req.host}`;
}

/** A request that came through a proxy, or from another machine, never reaches the local pages. */
function fromThisMachine(req: FastifyRequest): boolean {
  return isLoopback(req.socket.remoteAddress?.replace(/^::ffff:/, "") ?? "") && req.headers["x-forwarded-for"] === undefined && req.headers.forwarded === undefined;
}

const noStore = (reply: FastifyReply) => reply.header("cache-control", "no-store").header("referrer-policy", "no-referrer");

const KEY_SCHEMA = {
  type: "object",
  required: ["surface", "kind", "key"],
  properties: {
    surface: { type: "string", enum: ["stormwater", "nwp"], description: "The surface the key is for." },
    kind: { type: "string", enum: ["live", "test", "legacy"], description: "live (document 1, the plan's), test (document 1, free) or legacy (document 2)." },
    plan: { type: ["string", "null"], description: "pro or scale; null for a test key." },
    key: { type: "string", description: "The key itself: shown in this answer only." },
    key_id: { type: ["string", "null"], description: "The stored key's id (document 1); null for the derived document 2 key." },
  },
};

const REVEAL_SCHEMA = {
  type: "object",
  required: ["data", "request_id"],
  properties: {
    data: {
      type: "object",
      description: "The outcome, and the keys the first time.",
      required: ["outcome", "plan", "keys"],
      properties: {
        outcome: { type: "string", enum: ["shown", "already_shown", "not_paid"], description: "shown: the keys are in this answer, the only time; already_shown: they were shown before; not_paid: the payment is not confirmed yet, retry." },
        plan: { type: "string", description: "stormwater_pro, stormwater_scale or nwp_pro" },
        subscription_id: { type: ["string", "null"], description: "The receipt's subscription id; only with the keys." },
        keys: { type: "array", items: KEY_SCHEMA, description: "Empty unless outcome is shown." },
        reissue: { type: "string", description: "Where lost keys are reissued." },
      },
    },
    request_id: { type: "string", description: "Correlation id of this response, also in the X-Request-Id header." },
  },
};

const OUTCOMES: Record<number, string> = { [RevealOutcome.SHOWN]: "shown", [RevealOutcome.ALREADY_SHOWN]: "already_shown", [RevealOutcome.NOT_PAID]: "not_paid" };

function revealJson(req: FastifyRequest, res: RevealCheckoutResponse) {
  return {
    data: {
      outcome: OUTCOMES[res.outcome] ?? "not_paid",
      plan: res.planId,
      subscription_id: res.subscriptionId || null,
      keys: res.keys.map((k) => ({
        surface: k.surface === Surface.NWP ? "nwp" : "stormwater",
        kind: k.kind === KeyKind.LIVE ? "live" : k.kind === KeyKind.TEST ? "test" : "legacy",
        plan: k.plan === Plan.SCALE ? "scale" : k.plan === Plan.PRO ? "pro" : null,
        key: k.secret,
        key_id: k.keyId ?? null,
      })),
      reissue: REISSUE_TEXT,
    },
    request_id: req.id,
  };
}

/** ConnectErrors of the checkout RPCs in the contract's words. */
function checkoutProblem(e: unknown): unknown {
  if (!(e instanceof ConnectError)) return e;
  if (e.code === Code.FailedPrecondition) return new Problem("not_found", e.rawMessage);
  if (e.code === Code.Unauthenticated) return new Problem("invalid_api_key", "The key is not a key issued at checkout on this server.");
  return e;
}

const html = (summary: string) => ({ status: 200, description: summary, schema: { type: "object" } });

/** 200 JSON naming where to go, for a caller that asks for JSON; 303 there for a browser's form. */
function goTo(req: FastifyRequest, reply: FastifyReply, location: string, data: Record<string, string>) {
  reply.header("cache-control", "no-store");
  if (accepts(req.raw).type(["html", "json"]) === "json") return reply.send({ data, request_id: req.id });
  return reply.code(303).header("location", location).send();
}

const jsonGoTo = (description: string, fields: Record<string, string>) => ({
  status: 200,
  description: `${description} (with Accept: application/json; a browser's form post gets 303 there).`,
  schema: {
    type: "object",
    required: ["data", "request_id"],
    properties: {
      data: { type: "object", required: Object.keys(fields), properties: Object.fromEntries(Object.entries(fields).map(([k, d]) => [k, { type: "string", description: d }])), description: "Where to go next." },
      request_id: { type: "string", description: "Correlation id of this response, also in the X-Request-Id header." },
    },
  },
});
const FORM_BODY = (field: string, description: string) => ({
  type: "object",
  required: [field],
  properties: { [field]: { type: "string", description } },
  description: `A form post (application/x-www-form-urlencoded) or JSON with ${field}.`,
});

export function checkoutRoutes(deps: AppDeps, catalogue: CheckoutCatalogue): RouteSpec[] {
  const { entitlement } = deps.clients;
  const call = async <T>(p: Promise<T>): Promise<T> => {
    try {
      return await p;
    } catch (e) {
      throw checkoutProblem(e);
    }
  };
  /** The local provider's pages: here only, and only for this machine. */
  const localOnly = async (req: FastifyRequest) => {
    const read = await catalogue.read();
    if (read?.provider !== "local" || catalogue.localRefused(read.provider) || !fromThisMachine(req)) {
      throw new Problem("not_found", "No local checkout here: its pages are served only with PAYMENT_PROVIDER=local, on a gateway bound to a loopback address, to this machine.");
    }
  };
  const route = (method: RouteSpec["method"], url: string, doc: RouteSpec["doc"], handler: RouteSpec["handler"]): RouteSpec => ({ method, url, surface: "stormwater", doc: { ...doc, tag: CHECKOUT_TAG }, handler });

  return [
    route(
      "POST",
      "/checkout",
      {
        summary: "Start checkout for a plan (the Buy buttons of /pricing)",
        description: "Starts a Stripe Checkout Session in subscription mode for the plan's configured price and answers 303 to it. With PAYMENT_PROVIDER=local it leads to a local confirmation page instead (no money moves; loopback only).",
        operationId: "startCheckout",
        body: FORM_BODY("plan", "stormwater_pro, stormwater_scale or nwp_pro"),
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
        if (accepts(req.raw).type(["html", "json"]) === "json") return revealJson(req, res);
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
        body: FORM_BODY("api_key", "A key shown at checkout: the document 1 live or test key, or the document 2 key."),
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
          "Verified with the endpoint's signing secret (STRIPE_WEBHOOK_SECRET). checkout.session.completed (and async_payment_succeeded) issues the session's keys unless the success page already did; customer.subscription.deleted, or updated to a status other than active or trialing, revokes the subscription's document 1 live key. 200 once handled (a replay is handled, and issues nothing), 400 on a bad signature, 503 while the key store is away (Stripe retries).",
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
    route(
      "GET",
      "/checkout/local",
      {
        summary: "Local checkout: the confirmation page (PAYMENT_PROVIDER=local)",
        description: "Stands in for Stripe's payment page when the local provider is configured; served only on a loopback address.",
        operationId: "getLocalCheckout",
        html: true,
        query: { session_id: { description: "The local session id (cs_local_…).", required: true, schema: { type: "string" } }, plan: { description: "The plan being bought, for display.", schema: { type: "string" } } },
        success: html("The confirmation page."),
        errors: ["invalid_request", "not_found"],
        auth: "none",
      },
      async (req, reply) => {
        await localOnly(req);
        const plan = (req.query as Record<string, unknown>).plan;
        return noStore(reply).type(HTML).send(localConfirmHtml(queryParam(req, "session_id"), typeof plan === "string" ? plan : ""));
      },
    ),
    route(
      "POST",
      "/checkout/local/confirm",
      {
        summary: "Local checkout: confirm the purchase",
        description: "Creates the session's active local subscription and continues to the success page, as a paid Stripe checkout does.",
        operationId: "confirmLocalCheckout",
        body: FORM_BODY("session_id", "The local session id."),
        success: jsonGoTo("The success page", { success_url: "The success page of the session, which shows its keys once." }),
        redirect: "To the success page (Location).",
        errors: ["invalid_request", "not_found", "entitlement_check_unavailable", "internal"],
        auth: "none",
      },
      async (req, reply) => {
        await localOnly(req);
        const sessionId = required(formFields(req), "session_id");
        await call(entitlement.completeLocalCheckout({ sessionId }));
        const success = `${SUCCESS_PATH}?session_id=${encodeURIComponent(sessionId)}`;
        return goTo(req, reply, success, { success_url: success });
      },
    ),
    route(
      "GET",
      "/checkout/local/manage",
      {
        summary: "Local checkout: the stand-in for the customer portal",
        operationId: "getLocalManage",
        html: true,
        query: { session_id: { description: "The local session id.", required: true, schema: { type: "string" } } },
        success: html("The manage page."),
        errors: ["invalid_request", "not_found"],
        auth: "none",
      },
      async (req, reply) => {
        await localOnly(req);
        return noStore(reply).type(HTML).send(localManageHtml(queryParam(req, "session_id")));
      },
    ),
    route(
      "POST",
      "/checkout/local/cancel",
      {
        summary: "Local checkout: cancel the subscription",
        description: "Cancels the local subscription as customer.subscription.deleted does on Stripe: the document 1 live key is revoked, a document 2 key falls to the free allowance.",
        operationId: "cancelLocalCheckout",
        body: FORM_BODY("session_id", "The local session id."),
        success: html("Cancelled."),
        errors: ["invalid_request", "not_found", "entitlement_check_unavailable", "internal"],
        auth: "none",
      },
      async (req, reply) => {
        await localOnly(req);
        await call(entitlement.cancelLocalCheckout({ sessionId: required(formFields(req), "session_id") }));
        return noStore(reply).type(HTML).send(localManageHtml("", true));
      },
    ),
  ];
}
