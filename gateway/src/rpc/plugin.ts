// Internal callers of the embedded deployment: the engines built in this process (the services
// whose manifest says servedOnGatewayPort: stormwater and nwp, never entitlement or ratelimit)
// served at their protobuf paths over Connect and gRPC-Web, with the same interceptor chain as
// every other call to them, behind the same token check as a standalone engine (INTERNAL_TOKENS,
// the callers each RPC's proto admits). The public routes, metering and
// OpenAPI document do not see these routes: they carry no route config, so access control passes
// them by, and they are not in the route table.
import type { FastifyInstance } from "fastify";
import { fastifyConnectPlugin } from "@connectrpc/connect-fastify";
import { internalErrors, requireCaller } from "@permits/rpc";
import type { Logger } from "@permits/runtime";
import type { InternalEngines } from "../deps.js";

export async function internalRpc(app: FastifyInstance, opts: { engines: InternalEngines; readMaxBytes: number; logger: Logger }): Promise<void> {
  if (opts.engines.services.length === 0) return;
  await app.register(fastifyConnectPlugin, {
    routes: (router) => {
      for (const s of opts.engines.services) router.service(s.service, s.impl as never);
    },
    interceptors: [internalErrors(opts.logger), requireCaller(opts.engines.callers, opts.engines.services.map((s) => s.service)), ...opts.engines.interceptors],
    // Fastify here speaks HTTP/1.1: gRPC proper needs HTTP/2 (each service's own port has it).
    grpc: false,
    readMaxBytes: opts.readMaxBytes,
  });
}
