// The embedded default (PAYMENT_PROVIDER=local): checkout without Stripe. Buying leads to a local
// confirmation page on this server; confirming creates an active local subscription. No money
// moves, which is why the gateway offers these pages only on a loopback address.
import { randomBase62 } from "./keys.js";
import type { EntitlementStore } from "./store.js";
import { CHECKOUT_PLANS, type CheckoutProvider, type PlanPrice, type ProviderEvent, type ProviderSession, CheckoutNotConfiguredError } from "./checkout-plans.js";
import type { Clock } from "@permits/runtime";

export const LOCAL_CONFIRM_PATH = "/checkout/local";
export const LOCAL_MANAGE_PATH = "/checkout/local/manage";

export class LocalCheckout implements CheckoutProvider {
  readonly name = "local" as const;
  constructor(
    private readonly store: EntitlementStore,
    private readonly clock: Clock,
  ) {}

  async prices(): Promise<Map<string, PlanPrice>> {
    // Local mode charges nothing: no amount is shown.
    return new Map(CHECKOUT_PLANS.map((p) => [p.id, { currency: "", interval: "month" }]));
  }

  async start(planId: string, successUrl: string): Promise<{ sessionId: string; url: string }> {
    const sessionId = `cs_local_${randomBase62(32)}`;
    await this.store.checkout().putLocalSession({ id: sessionId, planId, createdAt: new Date(this.clock.now()).toISOString() });
    return { sessionId, url: `${new URL(successUrl).origin}${LOCAL_CONFIRM_PATH}?session_id=${sessionId}&plan=${planId}` };
  }

  async session(sessionId: string): Promise<ProviderSession | undefined> {
    const checkout = this.store.checkout();
    const s = await checkout.getLocalSession(sessionId);
    if (!s) return undefined;
    const subscriptionId = (await checkout.localSubscriptionOf(sessionId)) ?? null;
    return { id: s.id, planId: s.planId, paid: subscriptionId !== null, subscriptionId, customerId: null };
  }

  /** The confirmation: the first one creates the session's subscription, later ones return it. */
  async confirm(sessionId: string): Promise<string | undefined> {
    const checkout = this.store.checkout();
    if (!(await checkout.getLocalSession(sessionId))) return undefined;
    const subscriptionId = await checkout.claimLocalSubscription(sessionId, `sub_local_${randomBase62(24)}`);
    // Set after the claim; a retry after a failure here sets it again (an idempotent write).
    if ((await this.store.getSubscription(subscriptionId)) === undefined) await this.store.setSubscription(subscriptionId, "active");
    return subscriptionId;
  }

  async portal(of: { sessionId: string }, returnUrl: string): Promise<string> {
    return `${new URL(returnUrl).origin}${LOCAL_MANAGE_PATH}?session_id=${of.sessionId}`;
  }

  event(): ProviderEvent {
    throw new CheckoutNotConfiguredError("PAYMENT_PROVIDER is local: there are no provider webhooks to receive");
  }
}
