// What the gateway's parts are given: the service clients, configuration, logger, clock and the
// readiness probe. Its own module, so the app assembles the parts and nothing imports the app.
import type { Clock } from "@permits/common/clock";
import type { Logger } from "@permits/common/logger";
import type { ServiceClients } from "./clients.js";
import type { GatewayConfig } from "./config.js";

export interface AppDeps {
  clients: ServiceClients;
  config: GatewayConfig;
  logger: Logger;
  clock: Clock;
  /** Readiness of every dependency, for GET /readyz. */
  ready: () => Promise<Record<string, boolean>>;
}
