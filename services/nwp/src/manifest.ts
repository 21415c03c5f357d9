// The nwp service as its hosts know it (its main.ts, the gateway's list of services).
// Cheap to import: the dataset is loaded by `load`, on first use.
import type { ServiceManifest } from "@permits/runtime";
import { NwpService } from "@permits/proto/nwp/v1/nwp";

export const manifest: ServiceManifest<typeof NwpService, "nwp"> = {
  name: "nwp",
  service: NwpService,
  port: 7002,
  metricsPort: 9702,
  load: () => import("./build.js").then((m) => m.build),
  servedOnGatewayPort: true,
  // V8's own heap growth: bounding it at 100 % cost batches 15 to 25 % more CPU here, for 30 to
  // 60 MB less RSS (docs/configuration.md).
  heapGrowingPercent: 0,
};
