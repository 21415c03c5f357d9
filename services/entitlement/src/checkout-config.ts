// Checkout's configuration, read with the rest of the entitlement service's (config.ts):
//   STRIPE_WEBHOOK_SECRET (or _FILE)  the webhook endpoint's signing secret (whsec_…); checkout on
//                                     Stripe is off without it
//   STRIPE_PRICE_STORMWATER_PRO, STRIPE_PRICE_STORMWATER_SCALE, STRIPE_PRICE_NWP_PRO
//                                     the Stripe price id (price_…) of each plan; a plan without
//                                     one is not sold. Amounts are read from Stripe.
import { makeExactValidator } from "envalid";
import { readSecret } from "@permits/rpc";
import { configError, readEnv, type Clock } from "@permits/runtime";
import { CHECKOUT_PLANS, CheckoutNotConfiguredError, type CheckoutProvider, type PlanPrice } from "./checkout-plans.js";
import { LocalCheckout } from "./checkout-local.js";
import { StripeCheckout } from "./checkout-stripe.js";
import type { EntitlementStore } from "./store.js";

type Env = Record<string, string | undefined>;

export type CheckoutConfig =
  | { provider: "local" }
  | { provider: "stripe"; webhookSecret: string; priceIds: Record<string, string> }
  | { provider: "off"; reason: string };

const PRICE_ID_RE = /^price_[A-Za-z0-9_]{1,200}$/;

const priceId = makeExactValidator<string>((input) => {
  const id = input.trim();
  if (!PRICE_ID_RE.test(id)) throw new Error("must be a Stripe price id (price_…)");
  return id;
});

/** `payment`: PAYMENT_PROVIDER as config.ts read it. Throws a ConfigError naming a bad variable. */
export function loadCheckoutConfig(env: Env, payment: "local" | "stripe", warnings: string[]): CheckoutConfig {
  if (payment === "local") return { provider: "local" };
  const webhookSecret = readSecret(env, "STRIPE_WEBHOOK_SECRET");
  const given = readEnv(
    {
      STRIPE_PRICE_STORMWATER_PRO: priceId({ default: undefined, desc: "Stripe price id of the stormwater Pro plan; unset: not sold." }),
      STRIPE_PRICE_STORMWATER_SCALE: priceId({ default: undefined, desc: "Stripe price id of the stormwater Scale plan; unset: not sold." }),
      STRIPE_PRICE_NWP_PRO: priceId({ default: undefined, desc: "Stripe price id of the NWP Pro plan; unset: not sold." }),
    },
    env,
  );
  const priceIds: Record<string, string> = {};
  for (const p of CHECKOUT_PLANS) {
    const id = (given as Record<string, unknown>)[p.priceVariable] as string | undefined;
    if (id) priceIds[p.id] = id;
  }
  if (webhookSecret === undefined) {
    const reason = "checkout is not configured here (STRIPE_WEBHOOK_SECRET is not set)";
    if (Object.keys(priceIds).length > 0) warnings.push(`STRIPE_PRICE_* is set but STRIPE_WEBHOOK_SECRET is not: ${reason}`);
    return { provider: "off", reason };
  }
  if (/\s/.test(webhookSecret)) throw configError("STRIPE_WEBHOOK_SECRET", "must not contain whitespace");
  return { provider: "stripe", webhookSecret, priceIds };
}

/** Nothing is sold: every plan says why, and no webhook is accepted. */
class CheckoutOff implements CheckoutProvider {
  readonly name = "stripe" as const;
  constructor(private readonly reason: string) {}
  async prices(): Promise<Map<string, PlanPrice>> {
    return new Map(CHECKOUT_PLANS.map((p) => [p.id, { unavailable: this.reason }]));
  }
  async start(): Promise<never> {
    throw new CheckoutNotConfiguredError(this.reason);
  }
  async session(): Promise<undefined> {
    return undefined;
  }
  async portal(): Promise<never> {
    throw new CheckoutNotConfiguredError(this.reason);
  }
  event(): never {
    throw new CheckoutNotConfiguredError(this.reason);
  }
}

export function createCheckoutProvider(
  config: CheckoutConfig,
  stripe: { url: string; apiKey: string; timeoutMs: number } | undefined,
  store: EntitlementStore,
  clock: Clock,
): CheckoutProvider {
  if (config.provider === "local") return new LocalCheckout(store, clock);
  if (config.provider === "off" || !stripe) return new CheckoutOff(config.provider === "off" ? config.reason : "checkout is not configured");
  return new StripeCheckout({ ...stripe, webhookSecret: config.webhookSecret, priceIds: config.priceIds });
}
