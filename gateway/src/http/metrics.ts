// GET /metrics for Prometheus, and the HTTP request metrics behind it. The route is outside the
// route table: not in the discovery index or the OpenAPI document, not metered, never rate limited.
import type { FastifyInstance } from "fastify";
import { Counter, Histogram, type Registry } from "prom-client";
import { METRICS_CONTENT_TYPE, METRICS_PATH } from "@permits/common/metrics";

const HTTP_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function serveMetrics(app: FastifyInstance, registry: Registry): void {
  // The route as the table spells it (never the raw path, which would carry codes and keys).
  const labelNames = ["route", "method", "status_class", "surface"];
  const total = new Counter({ name: "http_server_requests_total", help: "HTTP requests answered, by route, method, status class and surface.", labelNames, registers: [registry] });
  const duration = new Histogram({ name: "http_server_request_duration_seconds", help: "Time to answer an HTTP request, by route, method, status class and surface.", labelNames, buckets: HTTP_BUCKETS, registers: [registry] });
  // Labelled children made once per label set and kept (see services/common/src/metrics.ts).
  const children = new Map<string, { count: () => void; observe: (seconds: number) => void }>();
  app.addHook("onResponse", (req, reply, done) => {
    const route = req.routeOptions.url ?? "unmatched";
    const statusClass = `${Math.floor(reply.statusCode / 100)}xx`;
    const key = `${route} ${req.method} ${statusClass}`;
    let child = children.get(key);
    if (!child) {
      const labels = { route, method: req.method, status_class: statusClass, surface: req.routeOptions.config?.surface ?? "none" };
      const counter = total.labels(labels);
      const histogram = duration.labels(labels);
      child = { count: () => counter.inc(), observe: (s) => histogram.observe(s) };
      children.set(key, child);
    }
    child.count();
    child.observe(reply.elapsedTime / 1000);
    done();
  });
  app.get(METRICS_PATH, async (_req, reply) => reply.type(METRICS_CONTENT_TYPE).send(await registry.metrics()));
}
