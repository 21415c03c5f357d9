// GET /metrics for Prometheus, and the HTTP request metrics behind it. The route is outside the
// route table: not in the discovery index or the OpenAPI document, not metered, never rate limited.
import fp from "fastify-plugin";
import { Counter, Histogram, type Registry } from "prom-client";
import { METRICS_CONTENT_TYPE, METRICS_PATH, recorder } from "@permits/rpc";

const HTTP_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** What the gateway's parts count, beyond the HTTP requests themselves. */
export interface GatewayInstruments {
  /** A rate decision under `policy`: admitted or refused, and the window that bound it. */
  rateDecided(policy: string, allowed: boolean, window: string): void;
  /** An answer replayed for a repeated Idempotency-Key. */
  replayed(): void;
  /** An MCP tool call and whether it answered or failed. */
  toolCalled(tool: string, ok: boolean): void;
}

export function gatewayInstruments(registry: Registry): GatewayInstruments {
  const decisions = recorder(new Counter({ name: "gateway_rate_decisions_total", help: "Rate decisions, by policy, outcome (admitted, refused) and the window closest to refusing.", labelNames: ["policy", "outcome", "window"], registers: [registry] }));
  const replays = new Counter({ name: "gateway_idempotent_replays_total", help: "Answers replayed for a repeated Idempotency-Key.", registers: [registry] });
  const tools = recorder(new Counter({ name: "mcp_tool_calls_total", help: "MCP tool calls, by tool and outcome (ok, error).", labelNames: ["tool", "outcome"], registers: [registry] }));
  return {
    rateDecided: (policy, allowed, window) => decisions(`${policy} ${allowed} ${window}`, () => ({ policy, outcome: allowed ? "admitted" : "refused", window })),
    replayed: () => replays.inc(),
    toolCalled: (tool, ok) => tools(`${tool} ${ok}`, () => ({ tool, outcome: ok ? "ok" : "error" })),
  };
}

export const serveMetrics = fp<{ registry: Registry }>(async (app, { registry }) => {
  // The route as the table spells it (never the raw path, which would carry codes and keys).
  const labelNames = ["route", "method", "status_class", "surface"];
  const record = recorder(
    new Counter({ name: "http_server_requests_total", help: "HTTP requests answered, by route, method, status class and surface.", labelNames, registers: [registry] }),
    new Histogram({ name: "http_server_request_duration_seconds", help: "Time to answer an HTTP request, by route, method, status class and surface.", labelNames, buckets: HTTP_BUCKETS, registers: [registry] }),
  );
  app.addHook("onResponse", (req, reply, done) => {
    const route = req.routeOptions.url ?? "unmatched";
    const statusClass = `${Math.floor(reply.statusCode / 100)}xx`;
    record(`${route} ${req.method} ${statusClass}`, () => ({ route, method: req.method, status_class: statusClass, surface: req.routeOptions.config?.surface ?? "none" }), reply.elapsedTime / 1000);
    done();
  });
  app.get(METRICS_PATH, async (_req, reply) => reply.type(METRICS_CONTENT_TYPE).send(await registry.metrics()));
}, { name: "metrics" });
