// The ratelimit service as its hosts know it (its main.ts, the gateway's list of services).
// Cheap to import: its store (Redis or LMDB) is loaded by `load`, on first use.
import type { ServiceManifest } from "@permits/runtime";
import { RateLimitService } from "@permits/proto/ratelimit/v1/ratelimit";

export const manifest: ServiceManifest<typeof RateLimitService, "ratelimit"> = {
  name: "ratelimit",
  service: RateLimitService,
  port: 7004,
  metricsPort: 9704,
  load: () => import("./build.js").then((m) => m.build),
  servedOnGatewayPort: false,
};
