// Builds the service's dependencies from the environment. Every value is validated up front and a
// bad one throws an Error naming the variable (never echoing a secret's value).
//
//   STATE_DIR                    LMDB store directory (default ./.state); ignored when REDIS_URL is set
//   REDIS_URL                    redis:// or rediss:// URL; selects the Redis store
//   ENTITLEMENT_REDIS_PREFIX     Redis key prefix (default "permits:entitlement:")
//   SANDBOX_KEY                  public sandbox key (documented default svc_sandbox_public)
//   LEGACY_KEY_SECRET            HMAC secret of NWP (legacy) live keys. The default is a
//                                development secret, public in this source: set it in production.
//   PAYMENT_PROVIDER             local (default, subscriptions in the store) | stripe
//   PAYMENT_PROVIDER_URL         stripe base URL (default https://api.stripe.com)
//   PAYMENT_PROVIDER_API_KEY     stripe secret key (or PAYMENT_PROVIDER_API_KEY_FILE); required when PAYMENT_PROVIDER=stripe
//   STRIPE_WEBHOOK_SECRET, STRIPE_PRICE_*  checkout (checkout-config.ts)
//   PAYMENT_PROVIDER_TIMEOUT_MS  provider timeout in ms (default 2000)
//   REDIS_TIMEOUT_MS             longest wait for one Redis command (default 250); a silent Redis
//                                then answers 503 instead of holding the request
import path from "node:path";
import { type Clock, DEFAULT_REDIS_TIMEOUT_MS, systemClock } from "@permits/runtime";
import type { Logger } from "pino";
import { readBreakerOptions, type BreakerOptions } from "@permits/runtime";
import { DEFAULT_SANDBOX_KEY, LEGACY_PREFIX, LIVE_PREFIX, TEST_PREFIX } from "./keys.js";
import { readSecret } from "@permits/rpc";
import { createCheckout, type Checkout } from "./checkout.js";
import { createCheckoutProvider, loadCheckoutConfig, type CheckoutConfig } from "./checkout-config.js";
import { LocalProvider, type PaymentProvider } from "./provider.js";
import { StripeProvider, stripeEndpoint } from "./provider-stripe.js";
import type { EntitlementServiceDeps } from "./service.js";
import type { EntitlementStore } from "./store.js";
import { LmdbStore } from "./store-lmdb.js";
import { DEFAULT_REDIS_PREFIX, RedisStore } from "./store-redis.js";

/** Development-only default; anyone can derive NWP (legacy) keys with it. */
export const DEV_LEGACY_KEY_SECRET = "dev-only-legacy-key-secret-do-not-use-in-production";
export const DEFAULT_STATE_DIR = "./.state";
export const DEFAULT_PROVIDER_TIMEOUT_MS = 2000;
export const DEFAULT_STRIPE_URL = "https://api.stripe.com";

type Env = Record<string, string | undefined>;

export interface EntitlementConfig {
  store: { backend: "lmdb"; stateDir: string } | { backend: "redis"; url: string; prefix: string; timeoutMs: number; breaker: BreakerOptions };
  sandboxKey: string;
  legacySecret: string;
  provider: { name: "local" } | { name: "stripe"; url: string; apiKey: string; timeoutMs: number };
  checkout: CheckoutConfig;
  /** Operator-facing notes (e.g. the development secret is in use); free of secret values. */
  warnings: string[];
}

function fail(variable: string, why: string): never {
  throw new Error(`${variable} ${why}`);
}

/** Treats unset and empty the same, as shells and compose files often export empty values. */
function read(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === "" ? undefined : v.trim();
}

/** A timeout variable: whole milliseconds from 1 to 60000. */
function readMs(env: Env, name: string, fallback: number): number {
  const text = read(env, name);
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text)) fail(name, "must be a whole number of milliseconds");
  const ms = Number(text);
  if (ms < 1 || ms > 60000) fail(name, "must be between 1 and 60000");
  return ms;
}

export function loadEntitlementConfig(env: Env = process.env): EntitlementConfig {
  const warnings: string[] = [];

  const redisUrl = read(env, "REDIS_URL");
  let store: EntitlementConfig["store"];
  if (redisUrl) {
    let u: URL;
    try {
      u = new URL(redisUrl);
    } catch {
      fail("REDIS_URL", "is not a URL (expected redis://host:port)");
    }
    if (u.protocol !== "redis:" && u.protocol !== "rediss:") fail("REDIS_URL", "must use redis:// or rediss://");
    const prefix = read(env, "ENTITLEMENT_REDIS_PREFIX") ?? DEFAULT_REDIS_PREFIX;
    if (/\s/.test(prefix)) fail("ENTITLEMENT_REDIS_PREFIX", "must not contain whitespace");
    store = { backend: "redis", url: redisUrl, prefix, timeoutMs: readMs(env, "REDIS_TIMEOUT_MS", DEFAULT_REDIS_TIMEOUT_MS), breaker: readBreakerOptions(env) };
  } else {
    const dir = read(env, "STATE_DIR") ?? DEFAULT_STATE_DIR;
    if (dir.includes("\0")) fail("STATE_DIR", "is not a valid path");
    store = { backend: "lmdb", stateDir: path.resolve(dir) };
  }

  const sandboxKey = read(env, "SANDBOX_KEY") ?? DEFAULT_SANDBOX_KEY;
  if (!/^[A-Za-z0-9_-]{8,128}$/.test(sandboxKey)) {
    fail("SANDBOX_KEY", "must be 8 to 128 characters of letters, digits, '_' or '-'");
  }
  // The sandbox key must never be mistaken for (or shadow) a live, test or legacy key.
  if (sandboxKey.startsWith(LIVE_PREFIX) || sandboxKey.startsWith(TEST_PREFIX) || sandboxKey.startsWith(`${LEGACY_PREFIX}_`)) {
    fail("SANDBOX_KEY", `must not start with ${LIVE_PREFIX}, ${TEST_PREFIX} or ${LEGACY_PREFIX}_`);
  }

  let legacySecret = read(env, "LEGACY_KEY_SECRET");
  if (legacySecret === undefined) {
    legacySecret = DEV_LEGACY_KEY_SECRET;
    warnings.push("LEGACY_KEY_SECRET is not set: using the public development secret; set it in production");
  } else if (legacySecret.length < 16) {
    fail("LEGACY_KEY_SECRET", "must be at least 16 characters");
  }

  const providerName = read(env, "PAYMENT_PROVIDER") ?? "local";
  if (providerName !== "local" && providerName !== "stripe") fail("PAYMENT_PROVIDER", "must be local or stripe");

  const timeoutMs = readMs(env, "PAYMENT_PROVIDER_TIMEOUT_MS", DEFAULT_PROVIDER_TIMEOUT_MS);

  let provider: EntitlementConfig["provider"] = { name: "local" };
  if (providerName === "stripe") {
    const url = read(env, "PAYMENT_PROVIDER_URL") ?? DEFAULT_STRIPE_URL;
    try {
      stripeEndpoint(url);
    } catch (err) {
      fail("PAYMENT_PROVIDER_URL", err instanceof TypeError ? "is not a URL" : (err as Error).message);
    }
    const apiKey = readSecret(env, "PAYMENT_PROVIDER_API_KEY") ?? fail("PAYMENT_PROVIDER_API_KEY", "is required when PAYMENT_PROVIDER=stripe");
    if (/\s/.test(apiKey)) fail("PAYMENT_PROVIDER_API_KEY", "must not contain whitespace");
    provider = { name: "stripe", url, apiKey, timeoutMs };
  }

  const checkout = loadCheckoutConfig(env, providerName, warnings);
  return { store, sandboxKey, legacySecret, provider, checkout, warnings };
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
