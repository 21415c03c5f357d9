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
  // Its requests carry files: a plan version's DOCX and PDF (up to 20 MB each, validate.ts) or a
  // photo (up to 10 MB). Above the shared 8 MB, so the service itself answers a file that is too
  // large with its own field error, and the transport refuses only what no request may be.
  maxRequestBytes: 48 * 1024 * 1024,
};
