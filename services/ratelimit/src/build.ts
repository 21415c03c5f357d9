import { type BuildContext, type BuiltService, ConfigError, readEnv, str } from "@permits/runtime";
import { readStateBackend } from "@permits/state";
import { RateLimitService } from "@permits/proto/ratelimit/v1/ratelimit";
import { defaultTiersPath, loadPolicies } from "./policies.js";
import { createRateLimitService, createRateLimitStore } from "./service.js";
import { storeMetrics } from "./store-metrics.js";

/** The ratelimit service: policies from TIERS_FILE (or data/tiers.json); Redis when REDIS_URL is set, else LMDB in STATE_DIR. */
export async function build(ctx: BuildContext): Promise<BuiltService<typeof RateLimitService>> {
  const state = readStateBackend(ctx.env);
  const env = readEnv({ TIERS_FILE: str({ default: defaultTiersPath() }) }, ctx.env);
  let policies;
  try {
    policies = loadPolicies(env.TIERS_FILE);
  } catch (e) {
    throw new ConfigError(`invalid configuration: TIERS_FILE: ${(e as Error).message}`);
  }
  const store = await createRateLimitStore(
    state.backend === "redis"
      ? { redisUrl: state.url, timeoutMs: state.timeoutMs, breaker: state.breaker, clock: ctx.clock, logger: ctx.logger, observer: ctx.metrics ? storeMetrics(ctx.metrics) : undefined }
      : { stateDir: state.stateDir, clock: ctx.clock, logger: ctx.logger },
  );
  return {
    service: RateLimitService,
    impl: createRateLimitService({ store, policies, clock: ctx.clock, logger: ctx.logger }),
    close: () => store.close(),
  };
}
