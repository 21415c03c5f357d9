// The entitlement store: issued stormwater-surface keys (hashed) and the local provider's subscriptions.
// Two backends (LMDB, Redis) implement this one interface and pass one test suite.
import type { CheckoutStore } from "./checkout-store.js";

import type { KeyKindName, PlanName, StoredKey } from "./stored-key.js";

export type { PlanName, StoredKey };
export type LocalSubscriptionStatus = "active" | "trialing" | "canceled";
export const LOCAL_SUBSCRIPTION_STATUSES: readonly LocalSubscriptionStatus[] = ["active", "trialing", "canceled"];

/** The store could not be reached (Redis away or silent): temporary, and no verdict on the data. */
export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super("the key store could not be reached", { cause });
    this.name = "StoreUnavailableError";
  }
}

export interface EntitlementStore {
  readonly backend: "lmdb" | "redis";
  /** Rejects when the id or the hash is already present. */
  insertKey(key: StoredKey): Promise<void>;
  findKeyByHash(hash: string): Promise<StoredKey | undefined>;
  getKey(id: string): Promise<StoredKey | undefined>;
  /** Oldest first. */
  listKeys(): Promise<StoredKey[]>;
  /** Sets revokedAt unless already set (revocation is idempotent); undefined for an unknown id. */
  revokeKey(id: string, at: string): Promise<StoredKey | undefined>;
  getSubscription(id: string): Promise<LocalSubscriptionStatus | undefined>;
  setSubscription(id: string, status: LocalSubscriptionStatus): Promise<void>;
  /** Checkout's records (checkout-store.ts), in the same backend as the keys. */
  checkout(): CheckoutStore;
  /** Resolves when the backend answers; for readiness probes. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Validates a record read back from storage, so a hand-edited or corrupt entry fails loudly. */
export function parseStoredKey(value: unknown): StoredKey {
  const v = value as Partial<StoredKey> | null;
  const ok =
    v !== null &&
    typeof v === "object" &&
    typeof v.id === "string" &&
    (v.kind === "live" || v.kind === "test") &&
    (v.plan === null || v.plan === "pro" || v.plan === "scale") &&
    typeof v.label === "string" &&
    typeof v.hash === "string" &&
    /^[0-9a-f]{64}$/.test(v.hash) &&
    typeof v.createdAt === "string" &&
    (v.revokedAt === null || typeof v.revokedAt === "string");
  if (!ok) throw new Error("entitlement store holds a malformed key record");
  return { id: v.id!, kind: v.kind!, plan: v.plan!, label: v.label!, hash: v.hash!, createdAt: v.createdAt!, revokedAt: v.revokedAt! };
}

export function isLocalSubscriptionStatus(value: unknown): value is LocalSubscriptionStatus {
  return typeof value === "string" && (LOCAL_SUBSCRIPTION_STATUSES as readonly string[]).includes(value);
}
