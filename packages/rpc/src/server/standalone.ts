// The standalone entry point shared by every service (its main.ts): read HOST, PORT and the
// callers' tokens, build the service its manifest names, serve it behind the token check, and
// close gracefully on SIGTERM.
import { ConfigError, createLogger, DEFAULT_HEAP_GROWING_PERCENT, heapGrowingPercent, host, limitHeapGrowth, nonNegativeInt, port, positiveInt, readEnv, type ServiceManifest, startOrExit, systemClock } from "@permits/runtime";
import { isLoopback, readInternalTokens, requireCaller } from "../interceptors/internal-auth.js";
import { processRegistry } from "../interceptors/metrics.js";
import { listenMetrics, readMetricsListener } from "./metrics-listener.js";
import { closeOnSignals, DEFAULT_LIMITS, serve, type ServiceLimits } from "./serve.js";
import { startTracing } from "../interceptors/tracing.js";

/** The variables every service reads at start (docs/configuration.md), with this service's defaults. */
function readStandaloneEnv(source: NodeJS.ProcessEnv, manifest: Pick<ServiceManifest, "port" | "heapGrowingPercent">) {
  return readEnv({
    HOST: host({ default: "127.0.0.1" }),
    PORT: port({ default: manifest.port }),
    HEAP_GROWING_PERCENT: heapGrowingPercent({ default: manifest.heapGrowingPercent ?? DEFAULT_HEAP_GROWING_PERCENT }),
    HEADERS_TIMEOUT_MS: positiveInt({ default: DEFAULT_LIMITS.headersTimeoutMs }),
    REQUEST_TIMEOUT_MS: positiveInt({ default: DEFAULT_LIMITS.requestTimeoutMs }),
    KEEP_ALIVE_TIMEOUT_MS: positiveInt({ default: DEFAULT_LIMITS.keepAliveTimeoutMs }),
    MAX_HEADER_BYTES: positiveInt({ default: DEFAULT_LIMITS.maxHeaderBytes }),
    MAX_CONNECTIONS: positiveInt({ default: DEFAULT_LIMITS.maxConnections }),
    MAX_CONCURRENT_STREAMS: positiveInt({ default: DEFAULT_LIMITS.maxConcurrentStreams }),
    MAX_CONNECTION_AGE_MS: nonNegativeInt({ default: DEFAULT_LIMITS.maxConnectionAgeMs }),
  }, source);
}

export function runStandalone(manifest: ServiceManifest): void {
  const { name } = manifest;
  void startOrExit(async () => {
    const env = readStandaloneEnv(process.env, manifest);
    const limits: ServiceLimits = {
      headersTimeoutMs: env.HEADERS_TIMEOUT_MS,
      requestTimeoutMs: env.REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: env.KEEP_ALIVE_TIMEOUT_MS,
      maxHeaderBytes: env.MAX_HEADER_BYTES,
      maxConnections: env.MAX_CONNECTIONS,
      maxConcurrentStreams: env.MAX_CONCURRENT_STREAMS,
      maxConnectionAgeMs: env.MAX_CONNECTION_AGE_MS,
      maxRequestBytes: manifest.maxRequestBytes ?? DEFAULT_LIMITS.maxRequestBytes,
    };
    const tokens = readInternalTokens(process.env);
    // On loopback with no tokens the service starts, and refuses every call but the health check.
    if (tokens.length === 0 && !isLoopback(env.HOST)) {
      throw new ConfigError(`invalid configuration: INTERNAL_TOKENS: required when listening on ${env.HOST} (not a loopback address); or set INTERNAL_TOKENS_FILE`);
    }
    limitHeapGrowth(env.HEAP_GROWING_PERCENT);
    const logger = createLogger(name);
    // Off unless OTEL_* asks for it; on, the server span is outside the token check, so refused calls show too.
    const tracing = await startTracing(name, process.env);
    const metrics = processRegistry();
    const built = await (await manifest.load())({ env: process.env, logger, clock: systemClock, metrics });
    const metricsAt = readMetricsListener(process.env, manifest.metricsPort);
    const running = await serve({ name, services: [{ service: built.service, impl: built.impl }], host: env.HOST, port: env.PORT, logger, interceptors: [...(tracing ? [tracing.server] : []), requireCaller(tokens, [built.service])], limits, metrics });
    const metricsListener = await listenMetrics(metrics, metricsAt, logger);
    closeOnSignals({ close: async () => { await running.close(); await metricsListener.close(); await built.close(); await tracing?.shutdown(); } }, logger);
  });
}
