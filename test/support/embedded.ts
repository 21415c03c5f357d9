// The embedded deployment, built in the test process: the gateway and its services wired
// by the same function `npm start` uses, reachable through Fastify's inject().
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { type Clock, createLogger, ManualClock, systemClock } from "@permits/runtime";
import { buildApp, readGatewayConfig, SERVICES, type ServiceClients, urlVariable, wireServices, type WiringInterceptors } from "@permits/gateway";
import type { Tracing } from "@permits/rpc";
import { openApiCheck, type OpenApiCheck } from "./openapi-check.js";

export interface Embedded {
  app: FastifyInstance;
  env: NodeJS.ProcessEnv;
  clients: ServiceClients;
  clock: Clock;
  close(): Promise<void>;
}

/**
 * Starts the embedded deployment. Every response it sends is checked against the OpenAPI document
 * it serves (status declared, JSON body valid); `close()` fails the suite with whatever was not.
 */
export async function startEmbedded(
  env: Record<string, string> = {},
  /** `checkOpenApi: false` where the caller checks each response itself (startTarget). */
  /** `tracing`: the gateway traces as `npm start` does with OTEL_* set, through this SDK. */
  /** `clients`: services this gateway reaches through another's clients, as replicas reach one service. */
  opts: { clock?: Clock; logStream?: NodeJS.WritableStream; interceptors?: WiringInterceptors; checkOpenApi?: boolean; tracing?: Tracing; clients?: Partial<ServiceClients> } = {},
): Promise<Embedded> {
  const stateDir = mkdtempSync(path.join(os.tmpdir(), "permits-state-"));
  const fullEnv = { ...process.env, LOG_LEVEL: "silent", REDIS_URL: "", STATE_DIR: stateDir, ...env } as NodeJS.ProcessEnv;
  for (const k of SERVICES.map((s) => urlVariable(s.name))) if (!(k in env)) delete fullEnv[k];
  const config = readGatewayConfig(fullEnv);
  const logger = createLogger("gateway", { level: opts.logStream ? "info" : config.LOG_LEVEL, destination: opts.logStream });
  const clock = opts.clock ?? systemClock;
  const { tracing } = opts;
  const interceptors = tracing ? { client: [tracing.client], service: [tracing.server], ...opts.interceptors } : opts.interceptors;
  const wiring = await wireServices(config, { env: fullEnv, logger, clock }, interceptors);
  const clients = { ...wiring.clients, ...opts.clients };
  const app = await buildApp({ clients, config, logger, clock, ready: wiring.ready, engines: wiring.engines, tracing: tracing !== undefined });
  let check: OpenApiCheck | undefined;
  const outsideTheDocument: string[] = [];
  app.addHook("onSend", async (req, reply, payload) => {
    if (check && (typeof payload === "string" || payload === null || payload === undefined)) {
      const type = reply.getHeader("content-type");
      outsideTheDocument.push(...check.problems(req.method, req.url, reply.statusCode, type === undefined ? undefined : String(type), payload ?? ""));
    }
    return payload;
  });
  await app.ready();
  if (opts.checkOpenApi !== false) check = openApiCheck((await app.inject({ method: "GET", url: "/api/openapi" })).json());
  return {
    app,
    env: fullEnv,
    clients,
    clock,
    close: async () => {
      await app.close();
      await wiring.close();
      rmSync(stateDir, { recursive: true, force: true });
      if (outsideTheDocument.length > 0) throw new Error(`responses outside the OpenAPI document:\n  ${[...new Set(outsideTheDocument)].join("\n  ")}`);
    },
  };
}

export { ManualClock };
