// The EntitlementService RPCs. Authentication lives in authenticate.ts; this file adds key
// administration, legacy key recovery and the local provider's subscriptions.
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import {
  ApiKeySchema,
  EntitlementService,
  KeyKind,
  Plan,
  SubscriptionStatus,
  type ApiKey,
} from "@permits/proto/entitlement/v1/entitlement";
import type { Clock } from "@permits/runtime";
import { invalidArgument, resourceNotFound, ViolationReason } from "@permits/rules";
import type { Logger } from "pino";
import { Authenticator, keyStoreUnavailableError } from "./authenticate.js";
import { resolveAccount } from "./app-account.js";
import { deriveLegacyKey, fingerprint, generateKeyId, generateKeySecret, sha256Hex, SUBSCRIPTION_ID_RE } from "./keys.js";
import { createCheckout, type Checkout } from "./checkout.js";
import { LocalCheckout } from "./checkout-local.js";
import type { ProviderObserver } from "./provider-metrics.js";
import type { PaymentProvider } from "./provider.js";
import { StoreUnavailableError, type EntitlementStore, type LocalSubscriptionStatus, type StoredKey } from "./store.js";

export interface EntitlementServiceDeps {
  store: EntitlementStore;
  provider: PaymentProvider;
  sandboxKey: string;
  legacySecret: string;
  clock: Clock;
  logger?: Logger;
  /** Told of each provider call and of coalesced checks (metrics). */
  observer?: ProviderObserver;
  /** Checkout (checkout.ts); the local provider's when absent. */
  checkout?: Checkout;
}

const MAX_LABEL_LENGTH = 200;

export function toApiKey(k: StoredKey): ApiKey {
  return create(ApiKeySchema, {
    id: k.id,
    kind: k.kind === "live" ? KeyKind.LIVE : KeyKind.TEST,
    plan: k.plan === "scale" ? Plan.SCALE : k.plan === "pro" ? Plan.PRO : Plan.UNSPECIFIED,
    label: k.label,
    createdAt: k.createdAt,
    revokedAt: k.revokedAt ?? undefined,
  });
}

function checkSubscriptionId(field: string, id: string): void {
  if (!SUBSCRIPTION_ID_RE.test(id)) {
    throw invalidArgument(`${field} is not a valid subscription id`, [
      {
        field,
        description: "letters, digits, '_' and '-', starting with a letter or digit, at most 200 characters",
        reason: id ? ViolationReason.MALFORMED : ViolationReason.MISSING,
      },
    ]);
  }
}

function toLocalStatus(status: SubscriptionStatus): LocalSubscriptionStatus {
  switch (status) {
    case SubscriptionStatus.ACTIVE:
      return "active";
    case SubscriptionStatus.TRIALING:
      return "trialing";
    case SubscriptionStatus.CANCELED:
      return "canceled";
    default:
      throw invalidArgument("status is required", [
        {
          field: "status",
          description: "one of active, trialing, canceled",
          reason: ViolationReason.MISSING,
          knownValues: ["active", "trialing", "canceled"],
        },
      ]);
  }
}

/** A store call whose failure to reach the store is a retryable Unavailable, not an Internal error. */
async function fromStore<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (e) {
    throw e instanceof StoreUnavailableError ? keyStoreUnavailableError() : e;
  }
}

export function createEntitlementService(deps: EntitlementServiceDeps): ServiceImpl<typeof EntitlementService> {
  const auth = new Authenticator(deps);
  const log = deps.logger;
  const now = () => new Date(deps.clock.now()).toISOString();
  const checkout = deps.checkout ?? createCheckout({ ...deps, provider: new LocalCheckout(deps.store, deps.clock) });

  const { subscriptionEnded: _ended, ...checkoutRpcs } = checkout;

  return {
    ...checkoutRpcs,
    async authenticate(req) {
      return { principal: await auth.authenticate(req.surface, req.apiKey, req.clientIp) };
    },

    async resolveAccount(req) {
      return fromStore(resolveAccount(auth, deps.store, req));
    },

    async recoverLegacyKey(req) {
      checkSubscriptionId("subscription_id", req.subscriptionId);
      const lookup = await auth.lookupSubscription(req.subscriptionId); // Unavailable on an outage
      if (!lookup.found) {
        // No list of valid ids: that would reveal other customers' subscriptions.
        throw resourceNotFound("The payment provider has no subscription with that id.", "subscription", req.subscriptionId, []);
      }
      // A lapsed subscription still gets its key back: the key works on the free tier.
      log?.info({ subscription: fingerprint(req.subscriptionId) }, "legacy key recovered");
      return { apiKey: deriveLegacyKey(deps.legacySecret, req.subscriptionId) };
    },

    async issueKey(req) {
      const kind = req.kind === KeyKind.LIVE ? "live" : req.kind === KeyKind.TEST ? "test" : undefined;
      if (!kind) {
        throw invalidArgument("kind must be live or test", [
          {
            field: "kind",
            description: "only live and test keys are issued; the sandbox key is configured and legacy keys are derived",
            reason: req.kind === KeyKind.UNSPECIFIED ? ViolationReason.MISSING : ViolationReason.UNKNOWN_VALUE,
            knownValues: ["live", "test"],
          },
        ]);
      }
      const plan = req.plan === Plan.PRO ? "pro" : req.plan === Plan.SCALE ? "scale" : null;
      if (kind === "live" && !plan) {
        throw invalidArgument("a live key needs a plan", [
          { field: "plan", description: "pro or scale", reason: ViolationReason.MISSING, knownValues: ["pro", "scale"] },
        ]);
      }
      if (kind === "test" && plan) {
        throw invalidArgument("a test key has no plan", [
          { field: "plan", description: "test keys are free on every plan; omit plan", reason: ViolationReason.MALFORMED },
        ]);
      }
      if (req.label.length > MAX_LABEL_LENGTH || /[\u0000-\u001f\u007f]/.test(req.label)) {
        throw invalidArgument("label is too long or has control characters", [
          { field: "label", description: `at most ${MAX_LABEL_LENGTH} printable characters`, reason: ViolationReason.MALFORMED },
        ]);
      }
      const secret = generateKeySecret(kind);
      const stored: StoredKey = {
        id: generateKeyId(),
        kind,
        plan,
        label: req.label,
        hash: sha256Hex(secret),
        createdAt: now(),
        revokedAt: null,
      };
      await fromStore(deps.store.insertKey(stored));
      log?.info({ keyId: stored.id, kind, plan }, "api key issued");
      return { key: toApiKey(stored), secret };
    },

    async listKeys() {
      return { keys: (await fromStore(deps.store.listKeys())).map(toApiKey) };
    },

    async revokeKey(req) {
      const revoked = req.id ? await fromStore(deps.store.revokeKey(req.id, now())) : undefined;
      if (!revoked) throw resourceNotFound("No API key has that id.", "key", req.id, []);
      log?.info({ keyId: revoked.id }, "api key revoked");
      return { key: toApiKey(revoked) };
    },

    async setLocalSubscription(req) {
      if (deps.provider.name !== "local") {
        throw new ConnectError(
          `PAYMENT_PROVIDER is ${deps.provider.name}; local subscriptions would not be consulted`,
          Code.FailedPrecondition,
        );
      }
      checkSubscriptionId("subscription_id", req.subscriptionId);
      const status = toLocalStatus(req.status);
      await fromStore(deps.store.setSubscription(req.subscriptionId, status));
      // A cancelled local subscription ends its checkout keys, as Stripe's webhook does (checkout.ts).
      if (status === "canceled") await fromStore(checkout.subscriptionEnded(req.subscriptionId));
      log?.info({ subscription: fingerprint(req.subscriptionId), status }, "local subscription set");
      return {};
    },
  };
}
