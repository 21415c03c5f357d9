// What the gateway's parts are given: the service clients, configuration, logger, clock and the
// readiness probe. Its own module, so the app assembles the parts and nothing imports the app.
import type { Interceptor } from "@connectrpc/connect";
import type { Registry } from "prom-client";
import type { GatewayInstruments } from "./http/metrics.js";
import type { Clock, HostedService, Logger } from "@permits/runtime";
import type { InternalToken } from "@permits/rpc";
import type { ServiceClients } from "./services.js";
import type { GatewayConfig } from "./config.js";

export interface AppDeps {
  clients: ServiceClients;
  config: GatewayConfig;
  logger: Logger;
  clock: Clock;
  /** Readiness of every dependency, for GET /readyz. */
  ready: () => Promise<Record<string, boolean>>;
  /** Engines built in this process, served to internal Connect callers at their protobuf paths. */
  engines?: InternalEngines;
  /** Served at GET /metrics; the HTTP request metrics are added to it. */
  metrics?: Registry;
  /** A server span per public request (the SDK is started by main, from the OTEL_* variables). */
  tracing?: boolean;
  /** Counters of the gateway's parts, on `metrics` (buildApp sets them). */
  instruments?: GatewayInstruments;
}

export interface InternalEngines {
  services: HostedService[];
  /** The services' interceptor chain, the same the gateway's own calls to them run. */
  interceptors: readonly Interceptor[];
  /** Tokens that may call them (INTERNAL_TOKENS, `engine` scope); none configured refuses every call. */
  callers: readonly InternalToken[];
}
