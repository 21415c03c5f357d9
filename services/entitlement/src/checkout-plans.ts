// The plans sold at checkout, and what a checkout provider does. One catalogue: the gateway's
// buy buttons, the Stripe price configuration and the keys a paid session gets all come from it.
import type { PlanName } from "./store.js";

export interface CheckoutPlanSpec {
  id: "stormwater_pro" | "stormwater_scale" | "nwp_pro";
  surface: "stormwater" | "nwp";
  plan: PlanName;
  /** The variable holding the plan's Stripe price id. */
  priceVariable: string;
}

export const CHECKOUT_PLANS: readonly CheckoutPlanSpec[] = [
  { id: "stormwater_pro", surface: "stormwater", plan: "pro", priceVariable: "STRIPE_PRICE_STORMWATER_PRO" },
  { id: "stormwater_scale", surface: "stormwater", plan: "scale", priceVariable: "STRIPE_PRICE_STORMWATER_SCALE" },
  { id: "nwp_pro", surface: "nwp", plan: "pro", priceVariable: "STRIPE_PRICE_NWP_PRO" },
];

export function checkoutPlan(id: string): CheckoutPlanSpec | undefined {
  return CHECKOUT_PLANS.find((p) => p.id === id);
}

/** Checkout session ids: Stripe's `cs_test_…`/`cs_live_…`, the local provider's `cs_local_…`. */
export const SESSION_ID_RE = /^cs_[A-Za-z0-9_]{1,250}$/;

export type PlanPrice = { unitAmount?: number; currency: string; interval: string } | { unavailable: string };

/** A checkout session as the provider reports it. */
export interface ProviderSession {
  id: string;
  planId: string | undefined;
  /** Paid (or needing no payment) and complete: its keys may be issued. */
  paid: boolean;
  subscriptionId: string | null;
  customerId: string | null;
}

export type ProviderEvent =
  | { id: string; type: string; kind: "session_paid"; session: ProviderSession }
  | { id: string; type: string; kind: "subscription_changed"; subscriptionId: string; active: boolean }
  | { id: string; type: string; kind: "other" };

/** The payment provider's side of checkout. Failures to reach it are ProviderUnavailableError. */
export interface CheckoutProvider {
  readonly name: "local" | "stripe";
  /** Each plan's price, or why it cannot be bought. */
  prices(): Promise<Map<string, PlanPrice>>;
  start(planId: string, successUrl: string, cancelUrl: string): Promise<{ sessionId: string; url: string }>;
  /** Undefined when the provider has no such session. */
  session(sessionId: string): Promise<ProviderSession | undefined>;
  /** Where the buyer manages or cancels the subscription. */
  portal(of: { sessionId: string; customerId: string | null }, returnUrl: string): Promise<string>;
  /** Verifies and reads a webhook; throws WebhookSignatureError when it is not the provider's. */
  event(payload: Uint8Array, signature: string): ProviderEvent;
}

export class WebhookSignatureError extends Error {
  override readonly name = "WebhookSignatureError";
}

/** Checkout is not offered by this provider's configuration (e.g. no webhook secret). */
export class CheckoutNotConfiguredError extends Error {
  override readonly name = "CheckoutNotConfiguredError";
}
