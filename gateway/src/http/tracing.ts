// The request span of each public request, made by Fastify's own OpenTelemetry plugin: a server
// span whose parent is the caller's `traceparent` when one is sent, and a child span for the
// route handler. The gateway's Connect calls, made inside the request, become its children
// (packages/rpc/src/interceptors/tracing.ts). Registered only when tracing is on (gateway/src/main.ts).
import type { FastifyInstance, FastifyRequest } from "fastify";
import { FastifyOtelInstrumentation } from "@fastify/otel";
import type { Span } from "@opentelemetry/api";
import { METRICS_PATH } from "@permits/rpc";

/** Probes and scrapes: frequent, and nothing to learn from a trace of them. */
const UNTRACED = new Set([METRICS_PATH, "/healthz", "/readyz"]);

/** The attribute carrying the request id (the body's request id and `X-Request-Id`). */
export const REQUEST_ID_ATTRIBUTE = "http.request.id";

export async function traceRequests(app: FastifyInstance): Promise<void> {
  const instrumentation = new FastifyOtelInstrumentation({
    // Hook spans would outnumber the rest (a dozen per request); the Connect calls that access
    // control makes in its hooks are traced as client spans of the request span instead.
    instrumentHooks: false,
    ignorePaths: ({ url }: { url: string }) => UNTRACED.has(url.split("?", 1)[0]),
    requestHook: (span: Span, request: FastifyRequest) => {
      // The HTTP conventions' span name: the method and the route (not the URL: no ids in names).
      span.updateName(`${request.method} ${request.routeOptions.url ?? "unknown route"}`);
      span.setAttribute(REQUEST_ID_ATTRIBUTE, request.id);
    },
  });
  await app.register(instrumentation.plugin());
}
