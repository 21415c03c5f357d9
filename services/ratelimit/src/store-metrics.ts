// What an operator watches of the shared store: how long Redis takes to decide, whether this
// instance is deciding alone (the per-instance fallback), and how many decisions it made so.
import { Counter, Gauge, Histogram, type Registry } from "prom-client";

export interface StoreObserver {
  /** A decision Redis made, and how long it took. */
  redisDecided(seconds: number): void;
  /** A decision the per-instance fallback made (Redis down or slow). */
  fallbackDecided(): void;
  /** The fallback took over (true) or Redis is back (false). */
  fallbackActive(active: boolean): void;
}

export function storeMetrics(registry: Registry): StoreObserver {
  const latency = new Histogram({ name: "ratelimit_redis_decision_duration_seconds", help: "Time Redis took to make a rate decision.", buckets: [0.0002, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25], registers: [registry] });
  const fallbacks = new Counter({ name: "ratelimit_fallback_decisions_total", help: "Rate decisions made by the per-instance fallback while Redis was down or slow.", registers: [registry] });
  const active = new Gauge({ name: "ratelimit_fallback_active", help: "1 while this instance decides with the per-instance fallback, else 0.", registers: [registry] });
  active.set(0);
  return {
    redisDecided: (seconds) => latency.observe(seconds),
    fallbackDecided: () => fallbacks.inc(),
    fallbackActive: (on) => active.set(on ? 1 : 0),
  };
}
