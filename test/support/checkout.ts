// Checkout as a buyer and as Stripe see it, for the end-to-end suites: the buy button, the fake
// Stripe's payment, and webhook events signed by the SDK's own test-header helper.
import Stripe from "stripe";
import type { FakeStripe } from "@permits/entitlement/testing";
import type { Target, TargetResponse } from "./target.js";

export const STRIPE_API_KEY = "sk_test_checkout_0123456789";
export const WEBHOOK_SECRET = "whsec_checkout_test_0123456789abcdef";
export const PRICES = { stormwater_pro: "price_sw_pro", stormwater_scale: "price_sw_scale", nwp_pro: "price_nwp_pro" } as const;

/** The environment of a deployment selling through the fake Stripe. */
export function stripeEnv(fake: FakeStripe): Record<string, string> {
  fake.setPrice(PRICES.stormwater_pro, 4900);
  fake.setPrice(PRICES.stormwater_scale, 19900);
  fake.setPrice(PRICES.nwp_pro, 2900);
  return {
    PAYMENT_PROVIDER: "stripe",
    PAYMENT_PROVIDER_URL: fake.url,
    PAYMENT_PROVIDER_API_KEY: STRIPE_API_KEY,
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_PRICE_STORMWATER_PRO: PRICES.stormwater_pro,
    STRIPE_PRICE_STORMWATER_SCALE: PRICES.stormwater_scale,
    STRIPE_PRICE_NWP_PRO: PRICES.nwp_pro,
  };
}

const sdk = new Stripe("sk_test_signing_only", { telemetry: false });
let eventCounter = 0;

/** A Stripe event and its Stripe-Signature header, as Stripe would send it. */
export function signedEvent(type: string, object: unknown, secret = WEBHOOK_SECRET): { payload: string; signature: string } {
  const payload = JSON.stringify({ id: `evt_test_${++eventCounter}`, object: "event", api_version: "2025-01-01", created: Math.floor(Date.now() / 1000), livemode: false, type, data: { object } });
  return { payload, signature: sdk.webhooks.generateTestHeaderString({ payload, secret }) };
}

export function postWebhook(t: Target, event: { payload: string; signature: string }): Promise<TargetResponse> {
  return t.request({ method: "POST", url: "/webhooks/stripe", payload: event.payload, headers: { "content-type": "application/json", "stripe-signature": event.signature } });
}

/** Clicks Buy: the 303 to Stripe's page, and the session it created. */
export async function buy(t: Target, fake: FakeStripe, plan: string): Promise<{ res: TargetResponse; sessionId: string }> {
  const res = await t.request({ method: "POST", url: "/checkout", payload: `plan=${plan}`, headers: { "content-type": "application/x-www-form-urlencoded" } });
  const sessionId = /\/pay\/(cs_test_\w+)$/.exec(res.headers.location ?? "")?.[1];
  if (res.statusCode !== 303 || !sessionId || !fake.sessions.has(sessionId)) throw new Error(`buy ${plan}: ${res.statusCode} ${res.headers.location} ${res.body}`);
  return { res, sessionId };
}

export function successPage(t: Target, sessionId: string, accept = "application/json"): Promise<TargetResponse> {
  return t.request({ method: "GET", url: `/checkout/success?session_id=${sessionId}`, headers: { accept } });
}
