import { type BuildContext, type BuiltService, evaluationDateOf } from "@permits/runtime";
import { StormwaterService } from "@permits/proto/stormwater/v1/stormwater";
import { loadDataset } from "./dataset.js";
import { createStormwaterService } from "./service.js";
import { determinationMetrics } from "@permits/rpc";

/** The stormwater service with its dataset loaded, validated and indexed once. */
export async function build(ctx: BuildContext): Promise<BuiltService<typeof StormwaterService>> {
  return { service: StormwaterService, impl: createStormwaterService(loadDataset(), evaluationDateOf(ctx.env, ctx.clock), ctx.metrics ? determinationMetrics(ctx.metrics, "stormwater") : undefined), close: async () => {} };
}
