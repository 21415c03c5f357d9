// Who a key is, per surface. The stormwater surface: no key is anonymous, never an error.
// The NWP surface: a key is required; the legacy live key is checked against the payment
// provider on every call. Errors carry codes only; the gateway owns both public vocabularies.
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { Surface } from "@permits/proto/common/v1/common";
import { KeyKind, Plan, PrincipalSchema, Tier, type Principal } from "@permits/proto/entitlement/v1/entitlement";
import { invalidArgument, ViolationReason } from "@permits/rules";
import type { Logger } from "pino";
import { KeylessCallers, MISSING } from "./keyless.js";
import { classifyKey, fingerprint, safeEqualHex, sha256Hex, verifyLegacySignature } from "./keys.js";
import { isActiveStatus, LOCAL_STORE_REASON, ProviderUnavailableError, type PaymentProvider, type SubscriptionLookup } from "./provider.js";
import type { EntitlementStore, StoredKey } from "./store.js";
import type { ProviderObserver } from "./provider-metrics.js";

/** Seconds a caller should wait before retrying when the provider could not answer. */
export const PROVIDER_RETRY_AFTER_SECONDS = 5;

export interface AuthenticatorDeps {
  store: EntitlementStore;
  provider: PaymentProvider;
  sandboxKey: string;
  legacySecret: string;
  logger?: Logger;
  /** Told of each provider call and of coalesced checks (metrics). */
  observer?: ProviderObserver;
}

/** Why a key was refused; logged (never the key), and the same Unauthenticated code either way. */
type Refusal = "missing" | "malformed" | "unknown" | "revoked" | "wrong_surface" | "bad_signature" | "unknown_subscription";

const REFUSAL_MESSAGES: Record<Refusal, string> = {
  missing: "An API key is required.",
  malformed: "The API key is not valid.",
  unknown: "The API key is not valid.",
  revoked: "The API key has been revoked.",
  wrong_surface: "The API key is not valid for this API.",
  bad_signature: "The API key is not valid.",
  unknown_subscription: "The API key is not valid.",
};

export function unavailableError(): ConnectError {
  return new ConnectError(
    `The subscription check could not reach the payment provider. This is temporary and does not mean the subscription ended; retry in ${PROVIDER_RETRY_AFTER_SECONDS} seconds.`,
    Code.Unavailable,
    { "retry-after": String(PROVIDER_RETRY_AFTER_SECONDS) },
  );
}

export const KEY_STORE_RETRY_AFTER_SECONDS = 2;

export function keyStoreUnavailableError(): ConnectError {
  return new ConnectError(
    `The key store could not be reached. This is temporary and says nothing about the key; retry in ${KEY_STORE_RETRY_AFTER_SECONDS} seconds.`,
    Code.Unavailable,
    { "retry-after": String(KEY_STORE_RETRY_AFTER_SECONDS) },
  );
}

export class Authenticator {
  /** Single flight: concurrent checks of one subscription share one provider call. */
  private readonly inflight = new Map<string, Promise<SubscriptionLookup>>();

  /** No key and the sandbox key: decided without the store (keyless.ts, shared with the gateway). */
  private readonly keyless: KeylessCallers;

  constructor(private readonly deps: AuthenticatorDeps) {
    this.keyless = new KeylessCallers(deps.sandboxKey);
  }

  async authenticate(surface: Surface, apiKey: string | undefined, clientIp: string): Promise<Principal> {
    if (surface !== Surface.STORMWATER && surface !== Surface.NWP) {
      throw invalidArgument("surface must be stormwater or nwp", [
        { field: "surface", description: "unspecified or unknown surface", reason: ViolationReason.MISSING },
      ]);
    }
    const keyless = this.keyless.identify(surface, apiKey, clientIp);
    if (keyless === MISSING) throw this.refuse(surface, "missing");
    if (keyless) return keyless;
    return surface === Surface.STORMWATER ? this.stormwaterKey(apiKey!) : this.nwpKey(apiKey!);
  }

  /** The stormwater surface: `svc_live_…` and `svc_test_…` keys, looked up by hash. */
  private async stormwaterKey(apiKey: string): Promise<Principal> {
    const surface = Surface.STORMWATER;
    const stored = await this.storedKeyOf(apiKey);
    if (stored.revokedAt !== null) throw this.refuse(surface, "revoked", stored.id);
    const bucket = `key:${stored.id}`;
    if (stored.kind === "test") {
      return this.principal(surface, { tier: Tier.TEST, bucket, keyKind: KeyKind.TEST, keyId: stored.id });
    }
    const scale = stored.plan === "scale";
    return this.principal(surface, {
      tier: scale ? Tier.SCALE : Tier.PRO,
      plan: scale ? Plan.SCALE : Plan.PRO,
      bucket,
      billable: true,
      keyKind: KeyKind.LIVE,
      keyId: stored.id,
    });
  }

  /**
   * The stored record of a `svc_live_…` or `svc_test_…` key, revoked or not; Unauthenticated when
   * the key has another shape or no record. Shared by authenticate and the app's sign-in.
   */
  async storedKeyOf(apiKey: string): Promise<StoredKey> {
    const surface = Surface.STORMWATER;
    const shape = classifyKey(apiKey);
    if (shape.shape === "legacy") throw this.refuse(surface, "wrong_surface");
    if (shape.shape !== "live" && shape.shape !== "test") throw this.refuse(surface, "malformed");
    const hash = sha256Hex(apiKey);
    let stored;
    try {
      stored = await this.deps.store.findKeyByHash(hash);
    } catch (err) {
      // The key store (Redis) is down: a retryable outage, never a verdict on the key.
      this.deps.logger?.warn({ err: { name: (err as Error).name } }, "key store unavailable");
      throw keyStoreUnavailableError();
    }
    // The lookup is by digest; the final check is a constant-time comparison of the digests.
    if (!stored || !safeEqualHex(stored.hash, hash)) throw this.refuse(surface, "unknown");
    return stored;
  }

  /** Whether the key is the configured sandbox key (keyless.ts decides, in constant time). */
  isSandboxKey(apiKey: string): boolean {
    return this.keyless.identify(Surface.STORMWATER, apiKey, "app") !== undefined;
  }

  /** Whether the key is a document 2 key this server issued (its signature holds). */
  isLegacyKey(apiKey: string): boolean {
    const shape = classifyKey(apiKey);
    return shape.shape === "legacy" && verifyLegacySignature(this.deps.legacySecret, shape.subscriptionId, shape.signature);
  }

  /** The NWP surface: the legacy live key, signature first, then the provider on every call. */
  private async nwpKey(apiKey: string): Promise<Principal> {
    const surface = Surface.NWP;
    const shape = classifyKey(apiKey);
    if (shape.shape === "live" || shape.shape === "test") throw this.refuse(surface, "wrong_surface");
    if (shape.shape !== "legacy") throw this.refuse(surface, "malformed");
    const { subscriptionId, signature } = shape;
    // A forged or mangled key stops here, without a provider call.
    if (!verifyLegacySignature(this.deps.legacySecret, subscriptionId, signature)) throw this.refuse(surface, "bad_signature");
    const lookup = await this.lookupSubscription(subscriptionId);
    if (!lookup.found) throw this.refuse(surface, "unknown_subscription");
    const bucket = `sub:${subscriptionId}`;
    // A lapsed Pro key keeps working on the free allowance (document 2, Authentication 6).
    const active = isActiveStatus(lookup.status);
    return this.principal(surface, {
      tier: active ? Tier.PRO : Tier.FREE,
      plan: active ? Plan.PRO : Plan.UNSPECIFIED,
      bucket,
      // The NWP surface sells a flat subscription (document 2); nothing on that surface is metered for billing.
      billable: false,
      keyKind: KeyKind.LEGACY,
      keyId: subscriptionId,
    });
  }

  /** Provider lookup with single flight; an outage becomes Unavailable with retry-after. */
  async lookupSubscription(subscriptionId: string): Promise<SubscriptionLookup> {
    let pending = this.inflight.get(subscriptionId);
    const { provider, observer } = this.deps;
    if (pending) observer?.coalesced(provider.name);
    else {
      const started = performance.now();
      const seconds = () => (performance.now() - started) / 1000;
      pending = provider.lookupSubscription(subscriptionId).then(
        (found) => (observer?.called(provider.name, "ok", seconds()), found),
        (err: unknown) => {
          observer?.called(provider.name, err instanceof ProviderUnavailableError && err.reason === "timeout" ? "timeout" : "error", seconds());
          throw err;
        },
      );
      pending = pending.finally(() => this.inflight.delete(subscriptionId));
      this.inflight.set(subscriptionId, pending);
    }
    try {
      return await pending;
    } catch (err) {
      const reason = err instanceof ProviderUnavailableError ? err.reason : "unexpected error";
      this.deps.logger?.warn(
        { provider: this.deps.provider.name, subscription: fingerprint(subscriptionId), reason },
        "payment provider unavailable for a subscription check",
      );
      // Name what failed: the local provider's backend is the key store (Redis or the file).
      throw reason === LOCAL_STORE_REASON ? keyStoreUnavailableError() : unavailableError();
    }
  }

  refuse(surface: Surface, reason: Refusal, keyId?: string): ConnectError {
    this.deps.logger?.debug({ surface: Surface[surface], reason, keyId }, "api key refused");
    return new ConnectError(REFUSAL_MESSAGES[reason], Code.Unauthenticated);
  }

  private principal(
    surface: Surface,
    p: { tier: Tier; bucket: string; keyKind: KeyKind; plan?: Plan; billable?: boolean; keyId?: string },
  ): Principal {
    return create(PrincipalSchema, {
      surface,
      tier: p.tier,
      plan: p.plan ?? Plan.UNSPECIFIED,
      bucket: p.bucket,
      billable: p.billable ?? false,
      keyId: p.keyId,
      keyKind: p.keyKind,
    });
  }
}
