// The local payment provider's pages (PAYMENT_PROVIDER=local): the confirmation page that stands in
// for Stripe's payment page and the manage page that stands in for its customer portal. They give
// keys away, so they answer only on a gateway bound to loopback, to this machine.
import type { FastifyRequest } from "fastify";
import type { CheckoutPlan, SubscriptionStatus } from "@permits/proto/entitlement/v1/entitlement";
import type { AppDeps } from "../../deps.js";
import { Problem } from "../../http/problems.js";
import type { RouteSpec } from "../../http/route-table.js";
import type { CheckoutCatalogue } from "./catalogue.js";
import { formFields, fromThisMachine, goTo, HTML, noStore, queryParam, required } from "./form.js";
import { checkoutRoute as route, formBody, htmlPage, jsonGoTo } from "./openapi-schemas.js";
import { localConfirmHtml, localManageHtml, type LocalSubscriptionView } from "./pages.js";
import { checkoutCall as call } from "./rpc-errors.js";

export function localCheckoutRoutes(deps: AppDeps, catalogue: CheckoutCatalogue, successPath: string): RouteSpec[] {
  const { entitlement } = deps.clients;
  /** The plans on sale, when the local pages are served here; otherwise not_found. */
  const localOnly = async (req: FastifyRequest): Promise<CheckoutPlan[]> => {
    const read = await catalogue.read();
    if (read?.provider !== "local" || catalogue.localRefused(read.provider) || !fromThisMachine(req)) {
      throw new Problem("not_found", "No local checkout here: its pages are served only with PAYMENT_PROVIDER=local, on a gateway bound to a loopback address, to this machine.");
    }
    return read.plans;
  };
  const view = (plans: CheckoutPlan[], sessionId: string, res: { planId: string; status: SubscriptionStatus }): LocalSubscriptionView => ({
    sessionId,
    planId: res.planId,
    surface: plans.find((p) => p.id === res.planId)?.surface,
    status: res.status,
  });

  return [
    route(
      "GET",
      "/checkout/local",
      {
        summary: "Local checkout: the confirmation page (PAYMENT_PROVIDER=local)",
        description: "Stands in for Stripe's payment page when the local provider is configured; served only on a loopback address.",
        operationId: "getLocalCheckout",
        html: true,
        query: { session_id: { description: "The local session id (cs_local_…).", required: true, schema: { type: "string" } }, plan: { description: "The plan being bought, for display.", schema: { type: "string" } } },
        success: htmlPage("The confirmation page."),
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
        body: formBody("session_id", "The local session id."),
        success: jsonGoTo("The success page", { success_url: "The success page of the session, which shows its keys once." }),
        redirect: "To the success page (Location).",
        errors: ["invalid_request", "not_found", "entitlement_check_unavailable", "internal"],
        auth: "none",
      },
      async (req, reply) => {
        await localOnly(req);
        const sessionId = required(formFields(req), "session_id");
        await call(entitlement.completeLocalCheckout({ sessionId }));
        const success = `${successPath}?session_id=${encodeURIComponent(sessionId)}`;
        return goTo(req, reply, success, { success_url: success });
      },
    ),
    route(
      "GET",
      "/checkout/local/manage",
      {
        summary: "Local checkout: the stand-in for the customer portal",
        description: "The session's plan and its subscription's status, with Cancel while it runs.",
        operationId: "getLocalManage",
        html: true,
        query: { session_id: { description: "The local session id.", required: true, schema: { type: "string" } } },
        success: htmlPage("The manage page."),
        errors: ["invalid_request", "not_found", "entitlement_check_unavailable", "internal"],
        auth: "none",
      },
      async (req, reply) => {
        const plans = await localOnly(req);
        const sessionId = queryParam(req, "session_id");
        const res = await call(entitlement.getLocalCheckout({ sessionId }));
        return noStore(reply).type(HTML).send(localManageHtml(view(plans, sessionId, res)));
      },
    ),
    route(
      "POST",
      "/checkout/local/cancel",
      {
        summary: "Local checkout: cancel the subscription",
        description: "Cancels the local subscription as customer.subscription.deleted does on Stripe: a stormwater plan's live key stops working (its test key keeps working), an NWP Pro key keeps working on the free allowance. Answers the manage page with the plan and its new status.",
        operationId: "cancelLocalCheckout",
        body: formBody("session_id", "The local session id."),
        success: htmlPage("Cancelled."),
        errors: ["invalid_request", "not_found", "entitlement_check_unavailable", "internal"],
        auth: "none",
      },
      async (req, reply) => {
        const plans = await localOnly(req);
        const sessionId = required(formFields(req), "session_id");
        const res = await call(entitlement.cancelLocalCheckout({ sessionId }));
        return noStore(reply).type(HTML).send(localManageHtml(view(plans, sessionId, res), true));
      },
    ),
  ];
}
