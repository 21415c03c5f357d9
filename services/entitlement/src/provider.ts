// Payment provider adapters: who knows whether an NWP subscription is still paid for.
import type { EntitlementStore } from "./store.js";

export type SubscriptionLookup =
  /** The provider has no such subscription. */
  | { found: false }
  /** The provider's own status word (Stripe: active, trialing, past_due, canceled, unpaid, ...). */
  | { found: true; status: string };

/**
 * The provider could not answer (unreachable, timed out, 5xx, unusable reply). Callers must treat
 * this as "retry", never as "the subscription ended".
 */
/** The reason the local provider gives when its backend, the key store, cannot answer. */
export const LOCAL_STORE_REASON = "local store";

export class ProviderUnavailableError extends Error {
  override readonly name = "ProviderUnavailableError";
  constructor(
    /** A short, secret-free reason for logs, e.g. "timeout", "connection", "status 500". */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`payment provider unavailable: ${reason}`, options);
  }
}

export interface PaymentProvider {
  readonly name: "local" | "stripe";
  /** Resolves found/not found; rejects with ProviderUnavailableError when there is no answer. */
  lookupSubscription(subscriptionId: string): Promise<SubscriptionLookup>;
}

/** Statuses that grant Pro; every other status a provider reports is an ended subscription. */
export function isActiveStatus(status: string): boolean {
  return status === "active" || status === "trialing";
}

/** The embedded default: subscriptions live in the entitlement store and are set by the CLI. */
export class LocalProvider implements PaymentProvider {
  readonly name = "local" as const;
  constructor(private readonly store: EntitlementStore) {}

  async lookupSubscription(subscriptionId: string): Promise<SubscriptionLookup> {
    let status: string | undefined;
    try {
      status = await this.store.getSubscription(subscriptionId);
    } catch (err) {
      // The store is this provider's backend: if it cannot answer, the provider cannot either.
      throw new ProviderUnavailableError(LOCAL_STORE_REASON, { cause: err });
    }
    return status === undefined ? { found: false } : { found: true, status };
  }
}
