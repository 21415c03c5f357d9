// The entitlement service as its hosts know it (its main.ts, the gateway's list of services).
// Cheap to import: Stripe's SDK, Redis and LMDB are loaded by `load`, on first use.
import type { ServiceManifest } from "@permits/runtime";
import { EntitlementService } from "@permits/proto/entitlement/v1/entitlement";

export const manifest: ServiceManifest<typeof EntitlementService, "entitlement"> = {
  name: "entitlement",
  service: EntitlementService,
  port: 7003,
  metricsPort: 9703,
  load: () => import("./build.js").then((m) => m.build),
  servedOnGatewayPort: false,
};
