// GET /metrics on a listener of its own (Prometheus's convention: an exporter port beside the
// service's), on loopback unless METRICS_HOST says otherwise. The public port of the gateway and
// of every service answers 404 for /metrics: what the process counts is for the operator's
// scraper, not for anyone who can reach the API.
import http from "node:http";
import { once } from "node:events";
import type { Registry } from "prom-client";
import { ConfigError, host, nonNegativeInt, readEnv, type Logger } from "@permits/runtime";
import { METRICS_CONTENT_TYPE, METRICS_PATH } from "../interceptors/metrics.js";

export interface MetricsListenerConfig {
  host: string;
  /** 0: any free port (logged). */
  port: number;
  /** METRICS_PORT was set: a port that cannot be bound stops the process. Unset: a warning. */
  explicit: boolean;
}

/** METRICS_HOST and METRICS_PORT; `defaultPort` is the role's own (its manifest's, or the gateway's). */
export function readMetricsListener(env: NodeJS.ProcessEnv, defaultPort: number): MetricsListenerConfig {
  const v = readEnv(
    {
      METRICS_HOST: host({ default: "127.0.0.1", desc: "Address of the metrics listener; loopback unless a scraper elsewhere must reach it." }),
      METRICS_PORT: nonNegativeInt({ default: defaultPort, desc: "Port of the metrics listener (GET /metrics); 0 = any free port." }),
    },
    env,
  );
  if (v.METRICS_PORT > 65535) throw new ConfigError("invalid configuration: METRICS_PORT: must be a port number (0 to 65535)");
  return { host: v.METRICS_HOST, port: v.METRICS_PORT, explicit: (env.METRICS_PORT ?? "") !== "" };
}

export interface MetricsListener {
  /** The bound port, or undefined when the default port was taken and metrics are not served. */
  port: number | undefined;
  close(): Promise<void>;
}

export async function listenMetrics(registry: Registry, config: MetricsListenerConfig, logger: Logger): Promise<MetricsListener> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0];
    if (path !== METRICS_PATH || (req.method !== "GET" && req.method !== "HEAD")) {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("Not found: this listener serves GET /metrics only.\n");
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { "content-type": METRICS_CONTENT_TYPE }).end(req.method === "HEAD" ? undefined : text),
      (err: unknown) => {
        logger.error({ err }, "metrics could not be collected");
        res.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end("The metrics could not be collected.\n");
      },
    );
  });
  server.listen(config.port, config.host);
  try {
    await Promise.race([once(server, "listening"), once(server, "error").then(([e]) => Promise.reject(e))]);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const line = `cannot listen on ${config.host}:${config.port} for metrics (${code}); set METRICS_PORT (or METRICS_HOST) to a free address`;
    // The default port taken (several processes on one machine): serve the API, say so loudly.
    if (!config.explicit) {
      logger.warn({ metricsHost: config.host, metricsPort: config.port, code }, `${line}; metrics are not served`);
      return { port: undefined, close: async () => {} };
    }
    throw new ConfigError(line);
  }
  const port = (server.address() as { port: number }).port;
  logger.info({ metricsHost: config.host, metricsPort: port }, "metrics listening");
  return {
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
