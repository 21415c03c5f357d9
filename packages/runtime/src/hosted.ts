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
