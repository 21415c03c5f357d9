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
import { SERVICES, urlVariable, type ServiceClients, type ServiceName } from "./services.js";
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

/** Interceptors beyond the defaults: the gateway's, on every call it makes, and the in-process services'. */
export interface WiringInterceptors {
  client?: readonly Interceptor[];
  /** The gateway's, on calls to remote services only (their chain is never empty: the token). */
  remote?: readonly Interceptor[];
  service?: readonly Interceptor[];
}

export async function wireServices(config: GatewayConfig, ctx: BuildContext, interceptors: WiringInterceptors = {}): Promise<Wiring> {
  const wired = {} as Record<ServiceName, Wired>;
  const chain = interceptors.service ?? [];
  // The gateway's own credential, sent on every remote call (the direct transport needs none).
  const token = readSecret(ctx.env, "GATEWAY_TOKEN");
  const remoteUrls = SERVICES.map((s) => urlVariable(s.name)).filter((v) => config[v]);
  if (remoteUrls.length > 0 && token === undefined) {
    throw new ConfigError(`invalid configuration: GATEWAY_TOKEN: required to call remote services (${remoteUrls.join(", ")}); or set GATEWAY_TOKEN_FILE`);
  }
  // Who may call the engines mounted on this gateway's port (rpc/plugin.ts).
  const callers = readInternalTokens(ctx.env);
  const breakers = readBreakerOptions(ctx.env);
  const clients = {} as Record<ServiceName, unknown>;
  const engines: HostedService[] = [];
  for (const s of SERVICES) {
    const url = config[urlVariable(s.name)];
    // Loaded only here, so a gateway whose services are all remote never loads a dataset or a store.
    const w = url ? remote(url, config.RPC_TIMEOUT_MS) : await inProcess(await s.load(), ctx, chain);
    // Remote calls pass a circuit breaker of their own service (rpc/breaker.ts).
    const client = url ? [...(interceptors.client ?? []), breakerInterceptor(s.name, breakers, ctx.logger), ...(interceptors.remote ?? []), sendToken(token!)] : (interceptors.client ?? []);
    wired[s.name] = { ...w, transport: withInterceptors(w.transport, client) };
    clients[s.name] = createClient(s.service, wired[s.name].transport);
    if (s.servedOnGatewayPort && w.hosted) engines.push(w.hosted);
  }
  const redis = config.REDIS_URL ? redisProbe(config.REDIS_URL) : undefined;
  return {
    clients: clients as ServiceClients,
    engines: { services: engines, interceptors: chain, callers },
    ready: async () => {
      const names = Object.keys(wired) as ServiceName[];
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
