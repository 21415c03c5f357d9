// `npm start` (embedded: every service in this process) and `npm run start:gateway`
// (each service remote when its <SERVICE>_URL is set).
import { createLogger, limitHeapGrowth, startOrExit, systemClock } from "@permits/runtime";
import { closeOnSignals, listenMetrics, processRegistry, readMetricsListener, rpcClientMetrics, startTracing } from "@permits/rpc";
import { buildApp } from "./app.js";
import { readGatewayConfig } from "./config.js";
import { GATEWAY } from "./services.js";
import { wireServices } from "./wiring.js";
import { refuseUnsafeDefaults } from "./safe-defaults.js";

void startOrExit(async () => {
  const config = readGatewayConfig();
  await refuseUnsafeDefaults(config, process.env);
  limitHeapGrowth(config.HEAP_GROWING_PERCENT);
  const logger = createLogger("gateway", { level: config.LOG_LEVEL });
  // Off unless OTEL_* asks for it: then no interceptor is added and the chains stay empty.
  const tracing = await startTracing("gateway", process.env);
  // The gateway's HTTP metrics and its calls to remote services. Calls to in-process services are
  // plain function calls inside the HTTP request's time; an interceptor there would cost the
  // embedded hot path its interceptor-free fast path (measured: about a third of its throughput).
  const metrics = processRegistry();
  const wiring = await wireServices(config, { env: process.env, logger, clock: systemClock, metrics }, {
    client: tracing ? [tracing.client] : [],
    remote: [rpcClientMetrics(metrics)],
    service: tracing ? [tracing.server] : [],
  });
  const app = await buildApp({ clients: wiring.clients, config, logger, clock: systemClock, ready: wiring.ready, engines: wiring.engines, metrics, tracing: tracing !== undefined });
  const metricsAt = readMetricsListener(process.env, GATEWAY.metricsPort);
  await app.listen({ host: config.HOST, port: config.PORT });
  const metricsListener = await listenMetrics(metrics, metricsAt, logger);
  // In-flight requests finish first, then the services and their stores close.
  closeOnSignals({ close: async () => { await app.close(); await metricsListener.close(); await wiring.close(); await tracing?.shutdown(); } }, logger);
});
