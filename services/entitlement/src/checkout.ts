// Checkout's RPCs: plans and prices, starting a session, and fulfilment. A paid session is
// fulfilled by the provider's webhook or by the success page, whichever comes first: both build
// the keys, and one atomic claim in the key store (checkout-store.ts) decides whose are kept. The
// success page then takes the sealed plaintexts once; every later look says they were shown.
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import { Surface } from "@permits/proto/common/v1/common";
import {
  CheckoutPlanSchema,
  EntitlementService,
  IssuedCheckoutKeySchema,
  KeyKind,
  Plan,
  RevealOutcome,
  SubscriptionStatus,
} from "@permits/proto/entitlement/v1/entitlement";
import type { Clock } from "@permits/runtime";
import { invalidArgument, resourceNotFound, ViolationReason } from "@permits/rules";
import type { Logger } from "pino";
import { keyStoreUnavailableError, unavailableError } from "./authenticate.js";
import { CHECKOUT_PLANS, checkoutPlan, CheckoutNotConfiguredError, SESSION_ID_RE, WebhookSignatureError, type CheckoutProvider, type ProviderSession } from "./checkout-plans.js";
import { seal, unseal, type Fulfilment } from "./checkout-store.js";
import { LocalCheckout } from "./checkout-local.js";
import { classifyKey, deriveLegacyKey, fingerprint, generateKeyId, generateKeySecret, sha256Hex, verifyLegacySignature } from "./keys.js";
import { ProviderUnavailableError } from "./provider.js";
import { StoreUnavailableError, type EntitlementStore, type LocalSubscriptionStatus, type StoredKey } from "./store.js";

export interface CheckoutDeps {
  store: EntitlementStore;
  provider: CheckoutProvider;
  /** Seals waiting plaintexts (with the session id) and derives document 2 keys. */
  legacySecret: string;
  clock: Clock;
  logger?: Logger;
}

/** A key as the success page shows it; only inside a seal until then. */
interface IssuedKey {
  surface: "stormwater" | "nwp";
  kind: "live" | "test" | "legacy";
  plan: "pro" | "scale" | null;
  secret: string;
  keyId?: string;
}

type CheckoutRpcs = Pick<
  ServiceImpl<typeof EntitlementService>,
  "getCheckoutPlans" | "startCheckout" | "completeLocalCheckout" | "cancelLocalCheckout" | "getLocalCheckout" | "revealCheckout" | "handleProviderEvent" | "createPortalSession"
>;

export interface Checkout extends CheckoutRpcs {
  /** Revokes the document 1 live keys of a subscription that ended; returns how many were revoked now. */
  subscriptionEnded(subscriptionId: string): Promise<number>;
}

/** Provider and store outages as retryable Unavailable; everything else as it is. */
async function guarded<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (e instanceof StoreUnavailableError) throw keyStoreUnavailableError();
    if (e instanceof ProviderUnavailableError) throw e.reason === "local store" ? keyStoreUnavailableError() : unavailableError();
    throw e;
  }
}

function checkSessionId(id: string): void {
  if (!SESSION_ID_RE.test(id)) {
    throw invalidArgument("session_id is not a checkout session id", [
      { field: "session_id", description: "cs_ followed by letters, digits and '_'", reason: id ? ViolationReason.MALFORMED : ViolationReason.MISSING },
    ]);
  }
}

function checkUrl(field: string, url: string, mustHold?: string): void {
  let ok = false;
  try {
    const u = new URL(url);
    ok = (u.protocol === "http:" || u.protocol === "https:") && (mustHold === undefined || url.includes(mustHold));
  } catch {
    ok = false;
  }
  if (!ok) {
    throw invalidArgument(`${field} is not a usable URL`, [
      { field, description: `an absolute http(s) URL${mustHold ? ` holding ${mustHold}` : ""}`, reason: url ? ViolationReason.MALFORMED : ViolationReason.MISSING },
    ]);
  }
}

const SURFACE = { stormwater: Surface.STORMWATER, nwp: Surface.NWP } as const;
const PLAN = { pro: Plan.PRO, scale: Plan.SCALE } as const;
const KIND = { live: KeyKind.LIVE, test: KeyKind.TEST, legacy: KeyKind.LEGACY } as const;
const STATUS: Record<LocalSubscriptionStatus, SubscriptionStatus> = { active: SubscriptionStatus.ACTIVE, trialing: SubscriptionStatus.TRIALING, canceled: SubscriptionStatus.CANCELED };

export function createCheckout(deps: CheckoutDeps): Checkout {
  const { store, provider, logger: log } = deps;
  const checkoutStore = () => store.checkout();
  const now = () => new Date(deps.clock.now()).toISOString();

  function local(): LocalCheckout {
    if (!(provider instanceof LocalCheckout)) {
      throw new ConnectError(`PAYMENT_PROVIDER is ${provider.name}: the local checkout pages are not in use`, Code.FailedPrecondition);
    }
    return provider;
  }

  /** A local session's plan and its subscription (none until confirmed); NotFound for an unknown session. */
  async function localSession(sessionId: string): Promise<{ planId: string; subscriptionId?: string }> {
    const session = await checkoutStore().getLocalSession(sessionId);
    if (!session) throw resourceNotFound("No local checkout session has that id.", "session", sessionId, []);
    return { planId: session.planId, subscriptionId: (await checkoutStore().localSubscriptionOf(sessionId)) ?? undefined };
  }

  /** Builds the session's keys and claims the session with them; the loser's keys are never stored. */
  async function fulfil(session: ProviderSession & { subscriptionId: string }, by: Fulfilment["issuedBy"]): Promise<{ claimed: boolean; fulfilment: Fulfilment }> {
    const spec = checkoutPlan(session.planId!)!;
    const issuedAt = now();
    const label = `checkout ${spec.id} ${fingerprint(session.id)}`;
    const issued: IssuedKey[] = [];
    const stored: StoredKey[] = [];
    if (spec.surface === "stormwater") {
      for (const kind of ["live", "test"] as const) {
        const secret = generateKeySecret(kind);
        const k: StoredKey = { id: generateKeyId(), kind, plan: kind === "live" ? spec.plan : null, label, hash: sha256Hex(secret), createdAt: issuedAt, revokedAt: null };
        stored.push(k);
        issued.push({ surface: "stormwater", kind, plan: k.plan, secret, keyId: k.id });
      }
    } else {
      issued.push({ surface: "nwp", kind: "legacy", plan: spec.plan, secret: deriveLegacyKey(deps.legacySecret, session.subscriptionId) });
    }
    const f: Fulfilment = { sessionId: session.id, planId: spec.id, subscriptionId: session.subscriptionId, customerId: session.customerId, keyIds: stored.map((k) => k.id), issuedAt, issuedBy: by };
    const sealed = seal(deps.legacySecret, session.id, JSON.stringify(issued));
    const { claimed, fulfilment } = await checkoutStore().claimFulfilment(f, stored, sealed);
    log?.info({ session: fingerprint(session.id), plan: spec.id, by, claimed, keyIds: fulfilment.keyIds }, claimed ? "checkout fulfilled" : "checkout already fulfilled");
    return { claimed, fulfilment };
  }

  /** A session of this API that the provider reports paid, with its subscription; otherwise why not. */
  function fulfillable(s: ProviderSession): s is ProviderSession & { subscriptionId: string; planId: string } {
    return s.planId !== undefined && s.paid && s.subscriptionId !== null;
  }

  async function subscriptionEnded(subscriptionId: string): Promise<number> {
    let revoked = 0;
    for (const f of await checkoutStore().fulfilmentsOf(subscriptionId)) {
      for (const id of f.keyIds) {
        const key = await store.getKey(id);
        // The live key carries the plan; the test key is free on every plan and stays.
        if (key?.kind === "live" && key.revokedAt === null) {
          await store.revokeKey(id, now());
          revoked++;
        }
      }
    }
    if (revoked > 0) log?.info({ subscription: fingerprint(subscriptionId), revoked }, "checkout keys revoked: subscription ended");
    return revoked;
  }

  return {
    subscriptionEnded,

    async getCheckoutPlans() {
      const prices = await guarded(() => provider.prices());
      return {
        provider: provider.name,
        plans: CHECKOUT_PLANS.map((p) => {
          const price = prices.get(p.id) ?? { unavailable: "not on sale here" };
          const on = !("unavailable" in price);
          return create(CheckoutPlanSchema, {
            id: p.id,
            surface: SURFACE[p.surface],
            plan: PLAN[p.plan],
            purchasable: on,
            unitAmount: on && price.unitAmount !== undefined ? BigInt(price.unitAmount) : undefined,
            currency: on ? price.currency : "",
            interval: on ? price.interval : "",
            unavailableReason: on ? "" : price.unavailable,
          });
        }),
      };
    },

    async startCheckout(req) {
      const spec = checkoutPlan(req.planId);
      if (!spec) {
        throw invalidArgument("plan_id is not a plan sold at checkout", [
          { field: "plan_id", description: "one of the checkout plans", reason: req.planId ? ViolationReason.UNKNOWN_VALUE : ViolationReason.MISSING, knownValues: CHECKOUT_PLANS.map((p) => p.id) },
        ]);
      }
      checkUrl("success_url", req.successUrl, "{CHECKOUT_SESSION_ID}");
      checkUrl("cancel_url", req.cancelUrl);
      const price = (await guarded(() => provider.prices())).get(spec.id);
      if (!price || "unavailable" in price) throw new ConnectError(`The ${spec.id} plan is ${price && "unavailable" in price ? price.unavailable : "not on sale"}.`, Code.FailedPrecondition);
      const started = await guarded(() => provider.start(spec.id, req.successUrl, req.cancelUrl));
      log?.info({ session: fingerprint(started.sessionId), plan: spec.id }, "checkout started");
      return { sessionId: started.sessionId, checkoutUrl: started.url };
    },

    async completeLocalCheckout(req) {
      const l = local();
      checkSessionId(req.sessionId);
      const subscriptionId = await guarded(() => l.confirm(req.sessionId));
      if (!subscriptionId) throw resourceNotFound("No local checkout session has that id.", "session", req.sessionId, []);
      return { subscriptionId };
    },

    async cancelLocalCheckout(req) {
      local();
      checkSessionId(req.sessionId);
      return guarded(async () => {
        const { planId, subscriptionId } = await localSession(req.sessionId);
        if (!subscriptionId) throw resourceNotFound("No confirmed local checkout session has that id.", "session", req.sessionId, []);
        await store.setSubscription(subscriptionId, "canceled");
        await subscriptionEnded(subscriptionId);
        return { planId, status: SubscriptionStatus.CANCELED };
      });
    },

    async getLocalCheckout(req) {
      local();
      checkSessionId(req.sessionId);
      return guarded(async () => {
        const { planId, subscriptionId } = await localSession(req.sessionId);
        const status = subscriptionId ? await store.getSubscription(subscriptionId) : undefined;
        return { planId, status: status ? STATUS[status] : SubscriptionStatus.UNSPECIFIED };
      });
    },

    async revealCheckout(req) {
      checkSessionId(req.sessionId);
      return guarded(async () => {
        let f = await checkoutStore().getFulfilment(req.sessionId);
        if (!f) {
          const session = await provider.session(req.sessionId);
          if (!session || session.planId === undefined) throw resourceNotFound("No checkout session of this API has that id.", "session", req.sessionId, []);
          if (!fulfillable(session)) return { outcome: RevealOutcome.NOT_PAID, planId: session.planId, subscriptionId: "", keys: [] };
          f = (await fulfil(session, "page")).fulfilment;
        }
        const take = await checkoutStore().takeSealed(req.sessionId, now());
        if (!("taken" in take)) {
          // The subscription id is a recovery credential (/recover): not for whoever reloads the page.
          return { outcome: RevealOutcome.ALREADY_SHOWN, planId: f.planId, subscriptionId: "", keys: [] };
        }
        const keys = (JSON.parse(unseal(deps.legacySecret, req.sessionId, take.taken)) as IssuedKey[]).map((k) =>
          create(IssuedCheckoutKeySchema, { surface: SURFACE[k.surface], kind: KIND[k.kind], plan: k.plan ? PLAN[k.plan] : Plan.UNSPECIFIED, secret: k.secret, keyId: k.keyId }),
        );
        log?.info({ session: fingerprint(req.sessionId), plan: f.planId }, "checkout keys shown");
        return { outcome: RevealOutcome.SHOWN, planId: f.planId, subscriptionId: f.subscriptionId, keys };
      });
    },

    async handleProviderEvent(req) {
      let event;
      try {
        event = provider.event(req.payload, req.signature);
      } catch (e) {
        if (e instanceof WebhookSignatureError) throw invalidArgument(e.message, [{ field: "signature", description: "Stripe-Signature of this endpoint's signing secret", reason: ViolationReason.MALFORMED }]);
        if (e instanceof CheckoutNotConfiguredError) throw new ConnectError(e.message, Code.FailedPrecondition);
        throw e;
      }
      const outcome = await guarded(async (): Promise<string> => {
        if (event.kind === "session_paid") {
          if (event.session.planId === undefined) return "ignored: not a checkout of this API";
          if (!fulfillable(event.session)) return "ignored: not paid yet";
          return (await fulfil(event.session, "webhook")).claimed ? "issued" : "already issued";
        }
        if (event.kind === "subscription_changed") {
          if (event.active) return "ignored: subscription active";
          return `revoked ${await subscriptionEnded(event.subscriptionId)} key(s)`;
        }
        return "ignored";
      });
      log?.info({ event: event.id, type: event.type, outcome }, "payment provider event");
      return { eventId: event.id, eventType: event.type, outcome };
    },

    async createPortalSession(req) {
      checkUrl("return_url", req.returnUrl);
      const refused = () => new ConnectError("The key is not a key issued at checkout.", Code.Unauthenticated);
      const shape = classifyKey(req.apiKey);
      return guarded(async () => {
        let f: Fulfilment | undefined;
        if (shape.shape === "legacy") {
          if (!verifyLegacySignature(deps.legacySecret, shape.subscriptionId, shape.signature)) throw refused();
          f = (await checkoutStore().fulfilmentsOf(shape.subscriptionId))[0];
        } else if (shape.shape === "live" || shape.shape === "test") {
          const key = await store.findKeyByHash(sha256Hex(req.apiKey));
          f = key ? await checkoutStore().fulfilmentOfKey(key.id) : undefined;
        }
        if (!f) throw refused();
        return { url: await provider.portal({ sessionId: f.sessionId, customerId: f.customerId }, req.returnUrl) };
      });
    },
  };
}
