// The stormwater service as its hosts know it (its main.ts, the gateway's list of services).
// Cheap to import: the dataset is loaded by `load`, on first use.
import type { ServiceManifest } from "@permits/runtime";
import { StormwaterService } from "@permits/proto/stormwater/v1/stormwater";

export const manifest: ServiceManifest<typeof StormwaterService, "stormwater"> = {
  name: "stormwater",
  service: StormwaterService,
  port: 7001,
  metricsPort: 9701,
  load: () => import("./build.js").then((m) => m.build),
  servedOnGatewayPort: true,
};
