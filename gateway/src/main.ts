// `npm start` (embedded: every service in this process) and `npm run start:gateway`
// (each service remote when its <SERVICE>_URL is set).
import { systemClock } from "@permits/common/clock";
import { startOrExit } from "@permits/common/config";
import { createLogger } from "@permits/common/logger";
import { buildApp } from "./app.js";
import { readGatewayConfig } from "./config.js";
import { wireServices } from "./wiring.js";

void startOrExit(async () => {
  const config = readGatewayConfig();
  const logger = createLogger("gateway", { level: config.LOG_LEVEL });
  const wiring = await wireServices(config, { env: process.env, logger, clock: systemClock });
  const app = await buildApp({ clients: wiring.clients, config, logger, clock: systemClock, ready: wiring.ready });
  await app.listen({ host: config.HOST, port: config.PORT });
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    await app.close(); // in-flight requests finish first
    await wiring.close();
    process.exit(0);
  };
  process.once("SIGTERM", () => void stop("SIGTERM"));
  process.once("SIGINT", () => void stop("SIGINT"));
});
