// Builds the service's dependencies from the environment. Every value is validated up front
// (readEnv, as in every service) and a bad one throws a ConfigError naming the variable (never
// echoing a secret's value).
//
//   STATE_DIR, REDIS_URL, REDIS_TIMEOUT_MS  where the key store lives (@permits/state's readStateBackend)
//   ENTITLEMENT_REDIS_PREFIX     Redis key prefix (default "permits:entitlement:")
//   SANDBOX_KEY                  public sandbox key (documented default svc_sandbox_public)
//   LEGACY_KEY_SECRET            HMAC secret of NWP (legacy) live keys. The default is a
//                                development secret, public in this source: set it in production.
//   PAYMENT_PROVIDER             local (default, subscriptions in the store) | stripe
//   PAYMENT_PROVIDER_URL         stripe base URL (default https://api.stripe.com)
//   PAYMENT_PROVIDER_API_KEY     stripe secret key (or PAYMENT_PROVIDER_API_KEY_FILE); required when PAYMENT_PROVIDER=stripe
//   STRIPE_WEBHOOK_SECRET, STRIPE_PRICE_*  checkout (checkout-config.ts)
//   PAYMENT_PROVIDER_TIMEOUT_MS  provider timeout in ms (default 2000)
import { makeExactValidator, makeValidator } from "envalid";
import type { Logger } from "pino";
import { type Clock, configError, readEnv, systemClock, timeoutMillis } from "@permits/runtime";
import { readSecret } from "@permits/rpc";
import { readStateBackend, type StateBackend } from "@permits/state";
import { DEFAULT_SANDBOX_KEY, LEGACY_PREFIX, LIVE_PREFIX, TEST_PREFIX } from "./keys.js";
import { createCheckout, type Checkout } from "./checkout.js";
import { createCheckoutProvider, loadCheckoutConfig, type CheckoutConfig } from "./checkout-config.js";
import { LocalProvider, type PaymentProvider } from "./provider.js";
import { StripeProvider, stripeEndpoint } from "./provider-stripe.js";
import type { EntitlementServiceDeps } from "./service.js";
import type { EntitlementStore } from "./store.js";
import { LmdbStore } from "./lmdb-store.js";
import { DEFAULT_REDIS_PREFIX, RedisStore } from "./redis-store.js";

/** Development-only default; anyone can derive NWP (legacy) keys with it. */
export const DEV_LEGACY_KEY_SECRET = "dev-only-legacy-key-secret-do-not-use-in-production";
export const DEFAULT_PROVIDER_TIMEOUT_MS = 2000;
export const DEFAULT_STRIPE_URL = "https://api.stripe.com";

type Env = Record<string, string | undefined>;

export interface EntitlementConfig {
  store: Extract<StateBackend, { backend: "lmdb" }> | (Extract<StateBackend, { backend: "redis" }> & { prefix: string });
  sandboxKey: string;
  legacySecret: string;
  provider: { name: "local" } | { name: "stripe"; url: string; apiKey: string; timeoutMs: number };
  checkout: CheckoutConfig;
  /** Operator-facing notes (e.g. the development secret is in use); free of secret values. */
  warnings: string[];
}

const redisPrefix = makeValidator<string>((input) => {
  if (/\s/.test(input.trim())) throw new Error("must not contain whitespace");
  return input.trim();
});

const sandboxKey = makeValidator<string>((input) => {
  const key = input.trim();
  if (!/^[A-Za-z0-9_-]{8,128}$/.test(key)) throw new Error("must be 8 to 128 characters of letters, digits, '_' or '-'");
  // The sandbox key must never be mistaken for (or shadow) a live, test or legacy key.
  if (key.startsWith(LIVE_PREFIX) || key.startsWith(TEST_PREFIX) || key.startsWith(`${LEGACY_PREFIX}_`)) {
    throw new Error(`must not start with ${LIVE_PREFIX}, ${TEST_PREFIX} or ${LEGACY_PREFIX}_`);
  }
  return key;
});

const legacySecret = makeExactValidator<string>((input) => {
  if (input.trim().length < 16) throw new Error("must be at least 16 characters");
  return input.trim();
});

const paymentProvider = makeValidator<"local" | "stripe">((input) => {
  const name = input.trim();
  if (name !== "local" && name !== "stripe") throw new Error("must be local or stripe");
  return name;
});

const stripeUrl = makeValidator<string>((input) => {
  const url = input.trim();
  try {
    stripeEndpoint(url);
  } catch (err) {
    throw new Error(err instanceof TypeError ? "is not a URL" : (err as Error).message);
  }
  return url;
});

export function loadEntitlementConfig(env: Env = process.env): EntitlementConfig {
  const warnings: string[] = [];
  const state = readStateBackend(env);
  const v = readEnv(
    {
      ENTITLEMENT_REDIS_PREFIX: redisPrefix({ default: DEFAULT_REDIS_PREFIX, desc: "Prefix of the key store's Redis keys." }),
      SANDBOX_KEY: sandboxKey({ default: DEFAULT_SANDBOX_KEY, desc: "The public sandbox key." }),
      LEGACY_KEY_SECRET: legacySecret({ default: undefined, desc: "HMAC secret of NWP (legacy) live keys." }),
      PAYMENT_PROVIDER: paymentProvider({ default: "local", desc: "local (subscriptions in the store) or stripe." }),
      PAYMENT_PROVIDER_TIMEOUT_MS: timeoutMillis({ default: DEFAULT_PROVIDER_TIMEOUT_MS, desc: "Longest wait for the payment provider." }),
    },
    env,
  );
  const store: EntitlementConfig["store"] = state.backend === "redis" ? { ...state, prefix: v.ENTITLEMENT_REDIS_PREFIX } : state;

  if (v.LEGACY_KEY_SECRET === undefined) warnings.push("LEGACY_KEY_SECRET is not set: using the public development secret; set it in production");

  let provider: EntitlementConfig["provider"] = { name: "local" };
  if (v.PAYMENT_PROVIDER === "stripe") {
    // Read only for Stripe: a local provider ignores them.
    const { PAYMENT_PROVIDER_URL: url } = readEnv({ PAYMENT_PROVIDER_URL: stripeUrl({ default: DEFAULT_STRIPE_URL, desc: "Stripe's base URL." }) }, env);
    const apiKey = readSecret(env, "PAYMENT_PROVIDER_API_KEY");
    if (apiKey === undefined) throw configError("PAYMENT_PROVIDER_API_KEY", "is required when PAYMENT_PROVIDER=stripe");
    if (/\s/.test(apiKey)) throw configError("PAYMENT_PROVIDER_API_KEY", "must not contain whitespace");
    provider = { name: "stripe", url, apiKey, timeoutMs: v.PAYMENT_PROVIDER_TIMEOUT_MS };
  }

  const checkout = loadCheckoutConfig(env, v.PAYMENT_PROVIDER, warnings);
  return { store, sandboxKey: v.SANDBOX_KEY, legacySecret: v.LEGACY_KEY_SECRET ?? DEV_LEGACY_KEY_SECRET, provider, checkout, warnings };
}

/** `waitForRedis: false` returns before Redis answers (see RedisStore.connect). */
export async function openStore(config: EntitlementConfig, logger?: Logger, waitForRedis = true): Promise<EntitlementStore> {
  if (config.store.backend === "lmdb") return LmdbStore.open(config.store.stateDir);
  return RedisStore.connect({
    waitForConnection: waitForRedis,
    url: config.store.url,
    prefix: config.store.prefix,
    timeoutMs: config.store.timeoutMs,
    breaker: config.store.breaker,
    onBreaker: (open) => logger?.warn({ store: "redis", breaker: open ? "open" : "closed" }, open ? "key store: circuit breaker open; keyed calls answered 503 at once until a probe succeeds" : "key store: circuit breaker closed; Redis answers again"),
    // Only the error's class and code: the message of a connection error can name the host.
    onError: (err) => logger?.error({ err: { name: err.name, code: (err as NodeJS.ErrnoException).code } }, "redis connection error"),
  });
}

export function createProvider(config: EntitlementConfig, store: EntitlementStore): PaymentProvider {
  const p = config.provider;
  return p.name === "stripe" ? new StripeProvider({ url: p.url, apiKey: p.apiKey, timeoutMs: p.timeoutMs }) : new LocalProvider(store);
}

export interface EntitlementDeps extends EntitlementServiceDeps {
  config: EntitlementConfig;
  /** Whether the store answers (Redis reachable, LMDB store readable); for readiness probes. */
  ready(): Promise<boolean>;
  /** Closes the store (the Redis connection); call on shutdown. */
  close(): Promise<void>;
}

/** Reads and validates the environment, opens the store and builds the provider. */
export async function createEntitlementDeps(
  env: Env = process.env,
  /** `waitForRedis: false`: a service that starts while Redis is away (build.ts). */
  options: { logger?: Logger; clock?: Clock; waitForRedis?: boolean } = {},
): Promise<EntitlementDeps> {
  const config = loadEntitlementConfig(env);
  for (const w of config.warnings) options.logger?.warn(w);
  const store = await openStore(config, options.logger, options.waitForRedis);
  const clock = options.clock ?? systemClock;
  const stripe = config.provider.name === "stripe" ? config.provider : undefined;
  const checkout: Checkout = createCheckout({
    store,
    provider: createCheckoutProvider(config.checkout, stripe, store, clock),
    legacySecret: config.legacySecret,
    clock,
    logger: options.logger,
  });
  return {
    config,
    store,
    checkout,
    provider: createProvider(config, store),
    sandboxKey: config.sandboxKey,
    legacySecret: config.legacySecret,
    clock,
    logger: options.logger,
    ready: () => store.ping().then(() => true, () => false),
    close: () => store.close(),
  };
}
