import type { DescService } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { Clock } from "./clock.js";
import type { Logger } from "./logger.js";
import type { Registry } from "prom-client";

/** What every service's build() gives: its descriptor, its handlers, and how to release its resources. */
export interface BuiltService<S extends DescService = DescService> {
  service: S;
  impl: ServiceImpl<S>;
  /** Reachability of what the service depends on (Redis, say), for readiness probes. */
  ready?: () => Promise<boolean>;
  close(): Promise<void>;
}

export interface BuildContext {
  env: NodeJS.ProcessEnv;
  logger: Logger;
  clock: Clock;
  /** The process's metrics registry, for a service's own metrics (GET /metrics). */
  metrics?: Registry;
}

/** A service as a host serves it: its descriptor and (some of) its handlers. */
export interface HostedService<S extends DescService = DescService> {
  service: S;
  impl: Partial<ServiceImpl<S>>;
}

/**
 * A service as every host knows it: one per service package (`@permits/<name>/manifest`), listed
 * once in gateway/src/services.ts. Importing one is cheap: the service itself, with its dataset
 * or store, is loaded by `load` on first use, so a gateway whose services are remote loads none.
 */
export interface ServiceManifest<S extends DescService = DescService, N extends string = string> {
  /** The role: `npm run start:<name>`, the gateway's `<NAME>_URL`, its name in logs and metrics. */
  readonly name: N;
  /** Its protobuf service; each RPC names the callers it admits (permits.common.v1.callers). */
  readonly service: S;
  /** PORT when unset. */
  readonly port: number;
  /** METRICS_PORT when unset. */
  readonly metricsPort: number;
  /** The service's build, imported when first needed. */
  readonly load: () => Promise<(ctx: BuildContext) => Promise<BuiltService<S>>>;
  /** Whether the embedded gateway also serves it to internal callers on its own port (the engines). */
  readonly servedOnGatewayPort: boolean;
  /** HEAP_GROWING_PERCENT when unset (heap.ts), where the service's differs from the default. */
  readonly heapGrowingPercent?: number;
  /**
   * Largest request message its server reads, where it needs more than the shared limit
   * (MAX_REQUEST_BYTES of @permits/rpc, 8 MB): a larger one is refused before its handler runs.
   */
  readonly maxRequestBytes?: number;
}
