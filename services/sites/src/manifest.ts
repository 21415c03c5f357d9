// The sites service as its hosts know it (its main.ts; the gateway's list of services once it is
// wired there). Cheap to import: build.ts loads its database and handlers on the first call.
import type { ServiceManifest } from "@permits/runtime";
import { SitesService } from "@permits/proto/sites/v1/sites";

export const manifest: ServiceManifest<typeof SitesService, "sites"> = {
  name: "sites",
  service: SitesService,
  port: 7005,
  metricsPort: 9705,
  load: () => import("./build.js").then((m) => m.build),
  servedOnGatewayPort: false,
};
