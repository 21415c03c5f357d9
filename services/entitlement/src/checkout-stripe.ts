// Checkout on Stripe: Checkout Sessions in subscription mode, prices read from Stripe, the
// customer portal, and webhooks verified with the endpoint's signing secret by the SDK itself.
import type Stripe from "stripe";
import { isActiveStatus, ProviderUnavailableError } from "./provider.js";
import { classify, stripeClient, type StripeProviderOptions } from "./provider-stripe.js";
import {
  CHECKOUT_PLANS,
  checkoutPlan,
  WebhookSignatureError,
  type CheckoutProvider,
  type PlanPrice,
  type ProviderEvent,
  type ProviderSession,
} from "./checkout-plans.js";

export interface StripeCheckoutOptions extends StripeProviderOptions {
  /** Checkout plan id -> Stripe price id (STRIPE_PRICE_*); a plan without one is not sold. */
  priceIds: Record<string, string>;
  webhookSecret: string;
}

/** The fields of a Checkout Session this code reads (the SDK types every field; few matter here). */
interface SessionLike {
  id: string;
  status?: string | null;
  payment_status?: string;
  subscription?: string | { id: string } | null;
  customer?: string | { id: string } | null;
  metadata?: Record<string, string> | null;
}

const idOf = (v: string | { id: string } | null | undefined): string | null => (typeof v === "string" ? v : (v?.id ?? null));

export function toProviderSession(s: SessionLike): ProviderSession {
  const planId = s.metadata?.plan;
  return {
    id: s.id,
    planId: planId && checkoutPlan(planId) ? planId : undefined,
    paid: s.status === "complete" && (s.payment_status === "paid" || s.payment_status === "no_payment_required"),
    subscriptionId: idOf(s.subscription),
    customerId: idOf(s.customer),
  };
}

/** Any failure to get an answer from Stripe is "unavailable": retry, never a verdict. */
function unavailable(err: unknown): ProviderUnavailableError {
  if (err instanceof ProviderUnavailableError) return err;
  return new ProviderUnavailableError(/timeout/i.test(String((err as Error)?.message ?? "")) ? "timeout" : classify(err), { cause: err });
}

export class StripeCheckout implements CheckoutProvider {
  readonly name = "stripe" as const;
  private readonly stripe: Stripe;
  private loading?: Promise<Map<string, PlanPrice>>;

  constructor(private readonly options: StripeCheckoutOptions) {
    this.stripe = stripeClient(options);
  }

  /** Read once; a failed read is tried again on the next call rather than remembered. */
  prices(): Promise<Map<string, PlanPrice>> {
    this.loading ??= this.loadPrices().catch((err: unknown) => {
      this.loading = undefined;
      throw unavailable(err);
    });
    return this.loading;
  }

  private async loadPrices(): Promise<Map<string, PlanPrice>> {
    const out = new Map<string, PlanPrice>();
    for (const plan of CHECKOUT_PLANS) {
      const priceId = this.options.priceIds[plan.id];
      if (!priceId) {
        out.set(plan.id, { unavailable: `not on sale here (${plan.priceVariable} is not set)` });
        continue;
      }
      const price = await this.stripe.prices.retrieve(priceId);
      if (!price.active || price.type !== "recurring") {
        out.set(plan.id, { unavailable: "not on sale here (its Stripe price is inactive or not recurring)" });
        continue;
      }
      out.set(plan.id, { unitAmount: price.unit_amount ?? undefined, currency: price.currency, interval: price.recurring?.interval ?? "" });
    }
    return out;
  }

  async start(planId: string, successUrl: string, cancelUrl: string): Promise<{ sessionId: string; url: string }> {
    const price = this.options.priceIds[planId];
    try {
      const session = await this.stripe.checkout.sessions.create({
        mode: "subscription",
        line_items: [{ price, quantity: 1 }],
        success_url: successUrl,
        cancel_url: cancelUrl,
        // Read back from the completed session (webhook or success page): which keys to issue.
        metadata: { plan: planId },
        subscription_data: { metadata: { plan: planId } },
      });
      if (!session.url) throw new ProviderUnavailableError("session without a url");
      return { sessionId: session.id, url: session.url };
    } catch (err) {
      throw unavailable(err);
    }
  }

  async session(sessionId: string): Promise<ProviderSession | undefined> {
    try {
      return toProviderSession((await this.stripe.checkout.sessions.retrieve(sessionId)) as SessionLike);
    } catch (err) {
      if (classify(err) === "missing") return undefined;
      throw unavailable(err);
    }
  }

  async portal({ customerId }: { customerId: string | null }, returnUrl: string): Promise<string> {
    if (!customerId) throw new ProviderUnavailableError("session without a customer");
    try {
      return (await this.stripe.billingPortal.sessions.create({ customer: customerId, return_url: returnUrl })).url;
    } catch (err) {
      throw unavailable(err);
    }
  }

  event(payload: Uint8Array, signature: string): ProviderEvent {
    let event: Stripe.Event;
    try {
      event = this.stripe.webhooks.constructEvent(Buffer.from(payload), signature, this.options.webhookSecret);
    } catch {
      // The SDK's message can quote the header; the caller gets a fixed one.
      throw new WebhookSignatureError("the Stripe-Signature header does not verify against the endpoint's signing secret");
    }
    const base = { id: event.id, type: event.type };
    switch (event.type) {
      case "checkout.session.completed":
      case "checkout.session.async_payment_succeeded":
        return { ...base, kind: "session_paid", session: toProviderSession(event.data.object as SessionLike) };
      case "customer.subscription.deleted":
      case "customer.subscription.updated": {
        const sub = event.data.object as { id: string; status: string };
        return { ...base, kind: "subscription_changed", subscriptionId: sub.id, active: event.type === "customer.subscription.updated" && isActiveStatus(sub.status) };
      }
      default:
        return { ...base, kind: "other" };
    }
  }
}
