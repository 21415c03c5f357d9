// The services, listed once. The gateway's clients and wiring, its <NAME>_URL variables and the
// internal callers it serves, and the test, bench and health-check helpers all iterate this list;
// a service's own package says everything else (its manifest: name, ports, protobuf service, build).
import type { Client } from "@connectrpc/connect";
import { manifest as stormwater } from "@permits/stormwater/manifest";
import { manifest as nwp } from "@permits/nwp/manifest";
import { manifest as entitlement } from "@permits/entitlement/manifest";
import { manifest as ratelimit } from "@permits/ratelimit/manifest";
import { manifest as sites } from "@permits/sites/manifest";

export const SERVICES = [stormwater, nwp, entitlement, ratelimit, sites] as const;

type Manifest = (typeof SERVICES)[number];
export type ServiceName = Manifest["name"];

/** The services as the gateway sees them: Connect clients, in process or remote. */
export type ServiceClients = { [M in Manifest as M["name"]]: Client<M["service"]> };

/** The variable that makes the gateway call a service remotely (STORMWATER_URL, ...). */
export type UrlVariable = `${Uppercase<ServiceName>}_URL`;
export const urlVariable = <N extends ServiceName>(name: N) => `${name.toUpperCase() as Uppercase<N>}_URL` as const;

/** The gateway's own defaults, beside its services' (docs/configuration.md). */
export const GATEWAY = { name: "gateway", port: 8080, metricsPort: 9080 } as const;
