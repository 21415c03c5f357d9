import type { BuildContext, BuiltService } from "@permits/runtime";
import { EntitlementService } from "@permits/proto/entitlement/v1/entitlement";
import { createEntitlementDeps } from "./config.js";
import { providerMetrics } from "./provider-metrics.js";
import { createEntitlementService } from "./service.js";

/** The entitlement service: key store (file or Redis) and payment provider from the environment. */
export async function build(ctx: BuildContext): Promise<BuiltService<typeof EntitlementService>> {
  // Started while Redis is away, it serves as during any Redis outage (keyed calls answered
  // Unavailable, retryable) instead of waiting: a restart or a rollout then never hangs on Redis.
  const deps = await createEntitlementDeps(ctx.env, { logger: ctx.logger, clock: ctx.clock, waitForRedis: false });
  const observer = ctx.metrics ? providerMetrics(ctx.metrics) : undefined;
  return { service: EntitlementService, impl: createEntitlementService({ ...deps, observer }), ready: deps.ready, close: deps.close };
}
