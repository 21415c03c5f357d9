// The one place that decides, for each service, how the gateway reaches it: a remote Connect
// transport over HTTP/2 when <SERVICE>_URL is set, otherwise the service built in this process
// behind the direct transport (no serialisation). Either way a call runs the same two Connect
// interceptor chains: the gateway's client chain, then the service's own (pipeline.ts).
import type { DescService } from "@bufbuild/protobuf";
import { createClient, type Interceptor, type Transport } from "@connectrpc/connect";
import { createDirectTransport, createH2Transport, directRoute, readInternalTokens, readSecret, sendToken, SESSION_MEMORY_MB, withInterceptors } from "@permits/rpc";
import { type BuildContext, type BuiltService, ConfigError, type HostedService } from "@permits/runtime";
import { redisProbe } from "@permits/state";
import { Health, HealthCheckResponse_ServingStatus } from "@permits/proto/grpc/health/v1/health";
import { StormwaterService } from "@permits/proto/stormwater/v1/stormwater";
import { NwpService } from "@permits/proto/nwp/v1/nwp";
import { EntitlementService } from "@permits/proto/entitlement/v1/entitlement";
import { RateLimitService } from "@permits/proto/ratelimit/v1/ratelimit";
import { SitesService } from "@permits/proto/sites/v1/sites";
import type { ServiceClients } from "./clients.js";
import { breakerInterceptor } from "./rpc/breaker.js";
import { readBreakerOptions } from "@permits/runtime";
import type { InternalEngines } from "./deps.js";
import type { GatewayConfig } from "./config.js";

type Builder = (ctx: BuildContext) => Promise<BuiltService<DescService>>;

interface Wired {
  transport: Transport;
  /** The service itself, when it is built in this process. */
  hosted?: HostedService;
  ready: () => Promise<boolean>;
  close: () => Promise<void>;
}

export interface Wiring {
  clients: ServiceClients;
  /** The engines built in this process, with their chain, for internal Connect callers (rpc/plugin.ts). */
  engines: InternalEngines;
  ready: () => Promise<Record<string, boolean>>;
  close: () => Promise<void>;
}

// Built lazily, so a gateway whose services are all remote never loads a dataset or a store.
const builders: Record<keyof ServiceClients, () => Promise<Builder>> = {
  stormwater: () => import("@permits/stormwater").then((m) => m.build as Builder),
  nwp: () => import("@permits/nwp").then((m) => m.build as Builder),
  entitlement: () => import("@permits/entitlement").then((m) => m.build as Builder),
  ratelimit: () => import("@permits/ratelimit").then((m) => m.build as Builder),
  sites: () => import("@permits/sites").then((m) => m.build as Builder),
};

/** Interceptors beyond the defaults: the gateway's, on every call it makes, and the in-process services'. */
export interface WiringInterceptors {
  client?: readonly Interceptor[];
  /** The gateway's, on calls to remote services only (their chain is never empty: the token). */
  remote?: readonly Interceptor[];
  service?: readonly Interceptor[];
}

export async function wireServices(config: GatewayConfig, ctx: BuildContext, interceptors: WiringInterceptors = {}): Promise<Wiring> {
  const urls: Record<keyof ServiceClients, string | undefined> = {
    stormwater: config.STORMWATER_URL,
    nwp: config.NWP_URL,
    entitlement: config.ENTITLEMENT_URL,
    ratelimit: config.RATELIMIT_URL,
    sites: config.SITES_URL,
  };
  const wired = {} as Record<keyof ServiceClients, Wired>;
  const chain = interceptors.service ?? [];
  // The gateway's own credential, sent on every remote call (the direct transport needs none).
  const token = readSecret(ctx.env, "GATEWAY_TOKEN");
  const remoteNames = (Object.keys(urls) as (keyof ServiceClients)[]).filter((n) => urls[n]);
  if (remoteNames.length > 0 && token === undefined) {
    throw new ConfigError(`invalid configuration: GATEWAY_TOKEN: required to call remote services (${remoteNames.map((n) => `${n.toUpperCase()}_URL`).join(", ")}); or set GATEWAY_TOKEN_FILE`);
  }
  // Who may call the engines mounted on this gateway's port (rpc/plugin.ts).
  const callers = readInternalTokens(ctx.env);
  const breakers = readBreakerOptions(ctx.env);
  for (const name of Object.keys(urls) as (keyof ServiceClients)[]) {
    const url = urls[name];
    const w = url ? remote(url, config.RPC_TIMEOUT_MS) : await inProcess(await builders[name](), ctx, chain);
    // Remote calls pass a circuit breaker of their own service (rpc/breaker.ts).
    const client = url ? [...(interceptors.client ?? []), breakerInterceptor(name, breakers, ctx.logger), ...(interceptors.remote ?? []), sendToken(token!)] : (interceptors.client ?? []);
    wired[name] = { ...w, transport: withInterceptors(w.transport, client) };
  }
  const clients: ServiceClients = {
    stormwater: createClient(StormwaterService, wired.stormwater.transport),
    nwp: createClient(NwpService, wired.nwp.transport),
    entitlement: createClient(EntitlementService, wired.entitlement.transport),
    ratelimit: createClient(RateLimitService, wired.ratelimit.transport),
    sites: createClient(SitesService, wired.sites.transport),
  };
  const redis = config.REDIS_URL ? redisProbe(config.REDIS_URL) : undefined;
  const engines = [wired.stormwater.hosted, wired.nwp.hosted].filter((h): h is HostedService => h !== undefined);
  return {
    clients,
    engines: { services: engines, interceptors: chain, callers },
    ready: async () => {
      const names = Object.keys(wired) as (keyof ServiceClients)[];
      const results = await Promise.all(names.map((n) => wired[n].ready().catch(() => false)));
      const checks: Record<string, boolean> = Object.fromEntries(names.map((n, i) => [n, results[i]]));
      if (redis) checks.redis = await redis.ping();
      return checks;
    },
    close: async () => {
      await Promise.all(Object.values(wired).map((w) => w.close()));
      await redis?.close();
    },
  };
}

function remote(baseUrl: string, timeoutMs: number): Wired {
  // One transport (one multiplexed HTTP/2 session) per upstream, created once. No compression:
  // on a private network, gzip of small binary messages costs more CPU than it saves.
  const transport = createH2Transport({ baseUrl, defaultTimeoutMs: timeoutMs, pingIntervalMs: 30_000, maxSessionMemory: SESSION_MEMORY_MB });
  const health = createClient(Health, transport);
  return {
    transport,
    ready: async () => (await health.check({ service: "" }, { timeoutMs: 1000 })).status === HealthCheckResponse_ServingStatus.SERVING,
    close: async () => {},
  };
}

async function inProcess(build: Builder, ctx: BuildContext, chain: readonly Interceptor[]): Promise<Wired> {
  const built = await build(ctx);
  return {
    hosted: { service: built.service, impl: built.impl },
    transport: createDirectTransport([directRoute(built.service, built.impl)], { interceptors: chain, logger: ctx.logger }),
    ready: built.ready ?? (async () => true),
    close: built.close,
  };
}
