// Chooses the store for the wiring code: Redis behind the per-instance memory fallback when a
// REDIS_URL is given; otherwise LMDB in STATE_DIR (the embedded default), or memory only when no
// state directory is given either (unit tests).
import type { BreakerOptions, Clock } from "@permits/runtime";
import { DEFAULT_REDIS_TIMEOUT_MS } from "@permits/state";
import { LmdbStore } from "./lmdb-store.js";
import { MemoryStore } from "./memory-store.js";
import { RedisStore } from "./redis-store.js";
import { ResilientStore } from "./resilient-store.js";
import type { StoreObserver } from "./store-metrics.js";
import { silentLogger, type Logger, type RateLimitStore } from "./store.js";

export interface CreateStoreOptions {
  /** e.g. process.env.REDIS_URL; absent or empty means the embedded store. */
  redisUrl?: string;
  /** STATE_DIR: where the embedded store keeps counters and idempotency records across restarts. */
  stateDir?: string;
  /**
   * Accepted so wiring can pass one set of deps; stores read no clock themselves, because the
   * service passes its Clock's `now` into every call (and into the Lua scripts).
   */
  clock?: Clock;
  logger?: Logger;
  keyPrefix?: string;
  /** Longest any call waits on Redis (default REDIS_TIMEOUT_MS's, 250 ms). */
  timeoutMs?: number;
  /** Longest the factory waits for the first connection before serving degraded (default 1 s). */
  startupWaitMs?: number;
  /** Told of Redis decisions and fallbacks (metrics). */
  observer?: StoreObserver;
  /** The circuit breaker on Redis calls (default DEFAULT_BREAKER's). */
  breaker?: BreakerOptions;
}

export async function createRateLimitStore(options: CreateStoreOptions = {}): Promise<RateLimitStore> {
  const logger = options.logger ?? silentLogger;
  if (!options.redisUrl) return options.stateDir ? LmdbStore.open(options.stateDir) : new MemoryStore();
  const timeoutMs = options.timeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS;
  const redis = new RedisStore({ url: options.redisUrl, keyPrefix: options.keyPrefix, commandTimeoutMs: timeoutMs });
  const store = new ResilientStore(redis, { timeoutMs, logger, observer: options.observer, breaker: options.breaker });
  // Wait briefly so the first requests are not needlessly degraded; keep retrying in the background.
  const connected = redis.connect().then(
    () => true,
    () => false,
  );
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), options.startupWaitMs ?? 1000);
  });
  const ok = await Promise.race([connected, waited]);
  clearTimeout(timer);
  if (!ok) store.enterOutage(new Error("redis not reachable at start"));
  return store;
}
