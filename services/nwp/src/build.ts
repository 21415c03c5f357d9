import type { BuildContext, BuiltService } from "@permits/common/hosted";
import { NwpService } from "@permits/proto/nwp/v1/nwp";
import { loadDataset } from "./dataset.js";
import { createNwpService } from "./service.js";

/** The nwp service with its dataset loaded and compiled once. */
export async function build(_ctx: BuildContext): Promise<BuiltService<typeof NwpService>> {
  return { service: NwpService, impl: createNwpService(loadDataset()), close: async () => {} };
}
