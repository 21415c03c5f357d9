import type { Client } from "@connectrpc/connect";
import type { StormwaterService } from "@permits/proto/stormwater/v1/stormwater";
import type { NwpService } from "@permits/proto/nwp/v1/nwp";
import type { EntitlementService } from "@permits/proto/entitlement/v1/entitlement";
import type { RateLimitService } from "@permits/proto/ratelimit/v1/ratelimit";
import type { SitesService } from "@permits/proto/sites/v1/sites";

/** The five services as the gateway sees them: Connect clients, in process or remote. */
export interface ServiceClients {
  stormwater: Client<typeof StormwaterService>;
  nwp: Client<typeof NwpService>;
  entitlement: Client<typeof EntitlementService>;
  ratelimit: Client<typeof RateLimitService>;
  sites: Client<typeof SitesService>;
}
