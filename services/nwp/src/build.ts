import { type BuildContext, type BuiltService, evaluationDateOf } from "@permits/runtime";
import { NwpService } from "@permits/proto/nwp/v1/nwp";
import { loadDataset } from "./dataset.js";
import { createNwpService } from "./service.js";
import { determinationMetrics } from "@permits/rpc";

/** The nwp service with its dataset loaded and compiled once. */
export async function build(ctx: BuildContext): Promise<BuiltService<typeof NwpService>> {
  return { service: NwpService, impl: createNwpService(loadDataset(), evaluationDateOf(ctx.env, ctx.clock), ctx.metrics ? determinationMetrics(ctx.metrics, "nwp") : undefined), close: async () => {} };
}
