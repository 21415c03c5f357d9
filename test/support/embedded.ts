// The embedded deployment, built in the test process: the gateway and the four services wired
// by the same function `npm start` uses, reachable through Fastify's inject().
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { ManualClock, systemClock, type Clock } from "@permits/common/clock";
import { createLogger } from "@permits/common/logger";
import { buildApp } from "@permits/gateway/app";
import { readGatewayConfig } from "@permits/gateway/config";
import { wireServices, type WiringInterceptors } from "@permits/gateway/wiring";
import type { ServiceClients } from "@permits/gateway/clients";

export interface Embedded {
  app: FastifyInstance;
  env: NodeJS.ProcessEnv;
  clients: ServiceClients;
  clock: Clock;
  close(): Promise<void>;
}

export async function startEmbedded(env: Record<string, string> = {}, opts: { clock?: Clock; logStream?: NodeJS.WritableStream; interceptors?: WiringInterceptors } = {}): Promise<Embedded> {
  const stateDir = mkdtempSync(path.join(os.tmpdir(), "permits-state-"));
  const fullEnv = { ...process.env, LOG_LEVEL: "silent", REDIS_URL: "", STATE_DIR: stateDir, ...env } as NodeJS.ProcessEnv;
  for (const k of ["STORMWATER_URL", "NWP_URL", "ENTITLEMENT_URL", "RATELIMIT_URL"]) if (!(k in env)) delete fullEnv[k];
  const config = readGatewayConfig(fullEnv);
  const logger = createLogger("gateway", { level: opts.logStream ? "info" : config.LOG_LEVEL, destination: opts.logStream });
  const clock = opts.clock ?? systemClock;
  const wiring = await wireServices(config, { env: fullEnv, logger, clock }, opts.interceptors);
  const app = await buildApp({ clients: wiring.clients, config, logger, clock, ready: wiring.ready, engines: wiring.engines });
  await app.ready();
  return {
    app,
    env: fullEnv,
    clients: wiring.clients,
    clock,
    close: async () => {
      await app.close();
      await wiring.close();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

export { ManualClock };
