// Redis first, a per-instance MemoryStore when Redis is down or slow. A Redis outage must not
// take the API down, and no request may wait on a dead socket: a call gets at most `timeoutMs`.
//
// What an outage costs: while degraded each replica counts on its own, so across N replicas a
// bucket can be admitted up to N x its limit for the outage's duration, and units admitted then
// are not in Redis afterwards (a monthly ceiling can be overrun by what the outage admitted).
// Paying callers are not refused for our failure; the gateway sees `degraded` and may log or
// bill from it. Idempotency records written during an outage are per instance as well.
import type { BreakerOptions } from "@permits/runtime";
import { DEFAULT_REDIS_TIMEOUT_MS, RedisBreaker } from "@permits/state";
import { MemoryStore } from "./memory-store.js";
import type { RedisStore } from "./redis-store.js";
import type { BeginOutcome, DecideOutcome, Logger, RateLimitStore, StoredResponseData } from "./store.js";
import type { StoreObserver } from "./store-metrics.js";
import type { WindowPlan } from "./windows.js";

export interface ResilientStoreOptions {
  /** Longest a call waits on Redis before the fallback answers. */
  timeoutMs?: number;
  logger: Logger;
  fallback?: MemoryStore;
  /** Told of each decision and of outages (metrics). */
  observer?: StoreObserver;
  /** After this many consecutive failures, the fallback answers at once (no wait on a frozen Redis). */
  breaker?: BreakerOptions;
}

export class ResilientStore implements RateLimitStore {
  private readonly fallback: MemoryStore;
  private readonly logger: Logger;
  private readonly observer?: StoreObserver;
  private outage = false;
  private readonly breaker: RedisBreaker;

  constructor(
    readonly primary: RedisStore,
    options: ResilientStoreOptions,
  ) {
    this.fallback = options.fallback ?? new MemoryStore();
    this.logger = options.logger;
    this.observer = options.observer;
    // Timeouts only open it: other failures come fast and fall back at once anyway.
    this.breaker = new RedisBreaker(options.timeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS, options.breaker);
  }

  /** True while the last call fell back (Redis down). */
  get degraded(): boolean {
    return this.outage;
  }

  async decide(subject: string, windows: WindowPlan[], cost: number, nowMs: number): Promise<DecideOutcome> {
    const started = performance.now();
    const outcome = await this.decision(
      () => this.primary.decide(subject, windows, cost, nowMs),
      () => this.fallback.decide(subject, windows, cost, nowMs),
    );
    if (outcome.degraded) this.observer?.fallbackDecided();
    else this.observer?.redisDecided((performance.now() - started) / 1000);
    return outcome;
  }

  async peek(subject: string, windows: WindowPlan[], nowMs: number): Promise<DecideOutcome> {
    return this.decision(
      () => this.primary.peek(subject, windows, nowMs),
      () => this.fallback.peek(subject, windows, nowMs),
    );
  }

  async refund(subject: string, windows: WindowPlan[], cost: number, nowMs: number): Promise<void> {
    await this.run(
      () => this.primary.refund(subject, windows, cost),
      () => this.fallback.refund(subject, windows, cost, nowMs),
    );
  }

  async beginIdempotent(scope: string, key: string, fingerprint: string, nowMs: number): Promise<BeginOutcome> {
    return (
      await this.run(
        () => this.primary.beginIdempotent(scope, key, fingerprint, nowMs),
        () => this.fallback.beginIdempotent(scope, key, fingerprint, nowMs),
      )
    ).value;
  }

  async completeIdempotent(scope: string, key: string, fingerprint: string, response: StoredResponseData, nowMs: number): Promise<void> {
    await this.run(
      () => this.primary.completeIdempotent(scope, key, fingerprint, response, nowMs),
      () => this.fallback.completeIdempotent(scope, key, fingerprint, response, nowMs),
    );
  }

  async releaseIdempotent(scope: string, key: string, nowMs: number): Promise<void> {
    // A claim may have been taken on either side of an outage; release both.
    await Promise.all([
      this.run(
        () => this.primary.releaseIdempotent(scope, key, nowMs),
        async () => {},
      ),
      this.fallback.releaseIdempotent(scope, key, nowMs),
    ]);
  }

  async close(): Promise<void> {
    await Promise.all([this.primary.close(), this.fallback.close()]);
  }

  private async decision(primary: () => Promise<DecideOutcome>, fallback: () => Promise<DecideOutcome>): Promise<DecideOutcome> {
    const { value, degraded } = await this.run(primary, fallback);
    return degraded ? { ...value, degraded: true } : value;
  }

  private async run<T>(primary: () => Promise<T>, fallback: () => Promise<T>): Promise<{ value: T; degraded: boolean }> {
    if (!this.primary.ready) {
      // Disconnected: commands would fail at once anyway (no offline queue); skip the attempt.
      this.enterOutage(new Error("redis not connected"));
      return { value: await fallback(), degraded: true };
    }
    try {
      // Open breaker: CircuitOpenError at once, and the fallback answers without the wait.
      const value = await this.breaker.run(primary);
      if (this.outage) {
        this.outage = false;
        this.observer?.fallbackActive(false);
        this.logger.info({ store: "redis" }, "ratelimit: redis is back; shared counting resumed");
      }
      return { value, degraded: false };
    } catch (err) {
      // A timed-out script may still have run on Redis; counting it twice errs on the strict side.
      this.enterOutage(err);
      return { value: await fallback(), degraded: true };
    }
  }

  /** Records an outage; logs once per outage, not once per request. */
  enterOutage(err: unknown): void {
    if (this.outage) return;
    this.outage = true;
    this.observer?.fallbackActive(true);
    this.logger.warn(
      { store: "redis", err: err instanceof Error ? err.message : String(err) },
      "ratelimit: redis unavailable; deciding with the per-instance memory limiter (degraded)",
    );
  }
}
