// What an operator watches of the payment provider: how long its subscription checks take and how
// they end (ok, error, timeout), and how many checks shared a call already in flight.
import { Counter, Histogram, type Registry } from "prom-client";

export interface ProviderObserver {
  /** A provider call ended: `outcome` ok, error or timeout. */
  called(provider: string, outcome: "ok" | "error" | "timeout", seconds: number): void;
  /** A check joined a call already in flight for the same subscription (single flight). */
  coalesced(provider: string): void;
}

export function providerMetrics(registry: Registry): ProviderObserver {
  const duration = new Histogram({
    name: "entitlement_provider_call_duration_seconds",
    help: "Payment provider subscription checks, by provider and outcome (ok, error, timeout).",
    labelNames: ["provider", "outcome"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5],
    registers: [registry],
  });
  const joined = new Counter({ name: "entitlement_provider_coalesced_checks_total", help: "Subscription checks that shared a provider call already in flight.", labelNames: ["provider"], registers: [registry] });
  return {
    called: (provider, outcome, seconds) => duration.observe({ provider, outcome }, seconds),
    coalesced: (provider) => joined.inc({ provider }),
  };
}
