import path from "node:path";
import { type BuildContext, type BuiltService, ConfigError, DEFAULT_REDIS_TIMEOUT_MS, optionalUrl, positiveInt, readEnv, str } from "@permits/runtime";
import { RateLimitService } from "@permits/proto/ratelimit/v1/ratelimit";
import { defaultTiersPath, loadPolicies } from "./policies.js";
import { createRateLimitService, createRateLimitStore } from "./service.js";
import { storeMetrics } from "./store-metrics.js";

/** The ratelimit service: policies from TIERS_FILE (or data/tiers.json); Redis when REDIS_URL is set, else LMDB in STATE_DIR. */
export async function build(ctx: BuildContext): Promise<BuiltService<typeof RateLimitService>> {
  const env = readEnv({ REDIS_URL: optionalUrl({ default: undefined }), STATE_DIR: str({ default: "./.state", desc: "Where the embedded store keeps counters and idempotency records (when REDIS_URL is unset)." }), TIERS_FILE: str({ default: defaultTiersPath() }), REDIS_TIMEOUT_MS: positiveInt({ default: DEFAULT_REDIS_TIMEOUT_MS, desc: "Longest wait for one Redis decision before the per-instance fallback answers." }) }, ctx.env);
  let policies;
  try {
    policies = loadPolicies(env.TIERS_FILE);
  } catch (e) {
    throw new ConfigError(`invalid configuration: TIERS_FILE: ${(e as Error).message}`);
  }
  const store = await createRateLimitStore({ redisUrl: env.REDIS_URL, stateDir: path.resolve(env.STATE_DIR), timeoutMs: env.REDIS_TIMEOUT_MS, clock: ctx.clock, logger: ctx.logger, observer: ctx.metrics && env.REDIS_URL ? storeMetrics(ctx.metrics) : undefined });
  return {
    service: RateLimitService,
    impl: createRateLimitService({ store, policies, clock: ctx.clock, logger: ctx.logger }),
    close: () => store.close(),
  };
}
