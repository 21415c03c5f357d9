// The app `npm start` assembles, built from the built gateway (npm run build) with a fixed
// environment (never the caller's) and a throw-away state directory, reachable through inject()
// so no port is opened. For the scripts that generate files from what the gateway serves.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createLogger, systemClock } from "@permits/runtime";
import { buildApp, readGatewayConfig, wireServices } from "@permits/gateway";

/** Runs `use({ app, clients })` against a fresh embedded gateway, then closes it; `extraEnv` adds to the fixed environment. */
export async function withEmbeddedGateway(use, extraEnv = {}) {
  const stateDir = mkdtempSync(path.join(os.tmpdir(), "permits-gen-"));
  const env = { LOG_LEVEL: "silent", STATE_DIR: stateDir, ...extraEnv };
  const config = readGatewayConfig(env);
  const logger = createLogger("gateway", { level: "silent" });
  const wiring = await wireServices(config, { env, logger, clock: systemClock });
  try {
    const app = await buildApp({ clients: wiring.clients, config, logger, clock: systemClock, ready: wiring.ready, engines: wiring.engines });
    try {
      await app.ready();
      return await use({ app, clients: wiring.clients });
    } finally {
      await app.close();
    }
  } finally {
    await wiring.close();
    rmSync(stateDir, { recursive: true, force: true });
  }
}
