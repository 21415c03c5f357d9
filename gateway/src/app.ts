// The Fastify gateway: shared HTTP plumbing, then one plugin per surface. It holds no domain
// logic: it parses public JSON, calls the services and writes each surface's envelope.
import fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import type { Server } from "node:net";
import cors from "@fastify/cors";
import type { AppDeps } from "./deps.js";
import { Problem, toProblem, type Surface } from "./http/problems.js";
import { requestIdFor } from "./http/request-id.js";
import { serializeBody } from "./http/public-json.js";
import { registerRoutes, unknownPathSurface, type RouteSpec } from "./http/route-table.js";
import { accessControl } from "./http/access.js";
import { stormwaterRoutes } from "./surfaces/stormwater/routes.js";
import { nwpRoutes } from "./surfaces/nwp/routes.js";
import { metaRoutes } from "./surfaces/meta/routes.js";
import { accountRoutes } from "./surfaces/account/routes.js";
import { coverageRoutes } from "./surfaces/coverage/routes.js";
import { changesRoutes } from "./surfaces/changes/routes.js";
import { mcpTransport } from "./mcp/plugin.js";
import { Registry } from "prom-client";
import { gatewayInstruments, serveMetrics } from "./http/metrics.js";
import { clientErrorHandler, drainUnreadBody, frameworkErrors, limitConnections, type SurfaceOfPath } from "./http/below-app.js";
import { internalRpc } from "./rpc/plugin.js";
import { docsPage } from "./surfaces/meta/docs-page.js";
import { isLoopback } from "@permits/common/internal-auth";
import { CheckoutCatalogue, checkoutRoutes } from "./surfaces/checkout/routes.js";
import { checkoutPlugin } from "./surfaces/checkout/plugin.js";

/** Headers a browser may read: every rate, quota, tier and request-id header. */
export const EXPOSED_HEADERS = [
  "X-Request-Id",
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
  "X-Quota-Limit",
  "X-Quota-Used",
  "X-Quota-Remaining",
  "X-Service-Tier",
  "RateLimit-Policy",
  "RateLimit",
  "Retry-After",
  "Idempotent-Replayed",
  "ETag",
  "Allow",
];

export async function buildApp(given: AppDeps): Promise<FastifyInstance> {
  const metrics = given.metrics ?? new Registry();
  const deps: AppDeps = { ...given, metrics, instruments: gatewayInstruments(metrics) };
  const { config } = deps;
  // Known once the routes are: answers written before routing read it through this.
  let surfaceOfPath: SurfaceOfPath = () => "stormwater";
  const app = fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: config.BODY_LIMIT_BYTES,
    trustProxy: config.TRUST_PROXY,
    genReqId: requestIdFor,
    // One request line is written by our onResponse hook instead of Fastify's two.
    logController: new LogController({ requestIdLogLabel: "requestId", disableRequestLogging: true }),
    // Requests arriving while draining get the surface's 503 (the onRequest hook below).
    return503OnClosing: false,
    // Limits for slow and abusive clients (README, Configuration); Node checks the head and
    // request timeouts every second rather than its default 30.
    http: { maxHeaderSize: config.MAX_HEADER_BYTES, headersTimeout: config.HEADERS_TIMEOUT_MS, connectionsCheckingInterval: 1000 },
    requestTimeout: config.REQUEST_TIMEOUT_MS,
    keepAliveTimeout: config.KEEP_ALIVE_TIMEOUT_MS,
    clientErrorHandler: clientErrorHandler(() => surfaceOfPath),
    // Fastify's option is generic over its server types; the handler reads only id, url and reply.
    frameworkErrors: frameworkErrors(() => surfaceOfPath, sendProblem) as never,
    routerOptions: { ignoreTrailingSlash: true },
  });

  // Any declared content type is read as JSON: clients that send text/plain or form encoding
  // get a precise invalid_json instead of a 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, (_req, body, done) => {
    if (body === "") return done(null, undefined);
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(Object.assign(new Error("invalid json"), { code: "FST_ERR_CTP_INVALID_JSON_BODY", statusCode: 400 }), undefined);
    }
  });

  // Response bodies splice the pre-written JSON of messages (see public-json.ts).
  app.setReplySerializer((payload) => serializeBody(payload) as unknown as string); // Fastify sends Buffers as they are

  // First, so that every hook and route after it runs inside the request's span.
  // Loaded only when on (its instrumentation library takes ~0.2 s to load).
  if (deps.tracing) await (await import("./http/tracing.js")).traceRequests(app);

  limitConnections(app.server as Server, config.MAX_CONNECTIONS, config.MAX_CONNECTIONS_PER_ADDRESS);

  // Before CORS: its preflight answers come from its own hook, and carry a request id too.
  let draining = false;
  app.addHook("preClose", (done) => {
    draining = true;
    done();
  });
  app.addHook("onRequest", (req, reply, done) => {
    reply.header("x-request-id", req.id);
    if (!draining) return done();
    // Shutting down: in-flight requests finish; new ones are told to retry elsewhere.
    reply.header("connection", "close");
    void sendProblem(req, reply, new Problem("internal", "The server is shutting down. Retry shortly; quote the request id.", { status: 503, headers: { "retry-after": "1" } }), surfaceOfPath(req.url));
  });
  // strictPreflight off: an OPTIONS without Origin is not a CORS preflight, and gets the
  // ordinary answer instead of a text/plain 400.
  await app.register(cors, { origin: "*", strictPreflight: false, exposedHeaders: EXPOSED_HEADERS, allowedHeaders: ["Authorization", "X-API-Key", "Content-Type", "Idempotency-Key", "X-Request-Id", "Mcp-Protocol-Version", "traceparent", "tracestate"], maxAge: 600 });

  // Callback-style hooks: nothing here waits, and an async hook costs a promise per request.
  app.addHook("onSend", drainUnreadBody);
  app.addHook("onResponse", (req, reply, done) => {
    // One structured line per request; the key headers are never part of it.
    req.log.info({ method: req.method, url: req.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 100) / 100 }, "request");
    done();
  });

  const routes: RouteSpec[] = [...stormwaterRoutes(deps), ...nwpRoutes(deps), ...accountRoutes(deps), ...coverageRoutes(deps), ...changesRoutes(deps)];
  // Checkout (issue 32): its own context (raw bodies); listed with the rest for /api/v1 and OpenAPI.
  const catalogue = new CheckoutCatalogue(deps, isLoopback(config.HOST));
  const checkout = checkoutRoutes(deps, catalogue);
  const allRoutes = [...routes, ...checkout, ...metaRoutes(deps, [...routes, ...checkout], catalogue)];
  app.register(accessControl, deps);
  serveMetrics(app, metrics);
  app.register(docsPage, { sandboxKey: config.SANDBOX_KEY });
  registerRoutes(app, allRoutes.filter((r) => !checkout.includes(r)));
  app.register(checkoutPlugin, { routes: checkout });
  app.register(mcpTransport, { deps, routes });
  if (deps.engines) app.register(internalRpc, { engines: deps.engines, readMaxBytes: config.BODY_LIMIT_BYTES, logger: deps.logger });

  app.get("/healthz", async () => ({ status: "ok" }));
  app.get("/readyz", async (_req, reply) => {
    const checks = await deps.ready();
    const ok = Object.values(checks).every(Boolean);
    return reply.code(ok ? 200 : 503).send({ status: ok ? "ready" : "not_ready", checks });
  });

  const endpoints = allRoutes.map((r) => `${r.method} ${r.url}`);
  surfaceOfPath = unknownPathSurface(allRoutes);
  app.setNotFoundHandler(async (req, reply) => {
    const p = new Problem("not_found", `No endpoint at ${req.method} ${req.url.split("?")[0]}.`, {
      details: { endpoints },
      knownValues: { endpoint: endpoints },
    });
    return sendProblem(req, reply, p, surfaceOfPath(req.url));
  });

  app.setErrorHandler(async (err: FastifyError, req, reply) => {
    const surface = req.surface ?? req.routeOptions.config?.surface ?? surfaceOfPath(req.url);
    if (clientWentAway(err)) {
      // Not a server fault: nobody reads the answer; no error-level log line.
      req.log.debug({ code: err.code }, "client went away");
      return sendProblem(req, reply, new Problem("invalid_request", "The request was not completed by the client."), surface);
    }
    return sendProblem(req, reply, problemOf(err, config.BODY_LIMIT_BYTES), surface, err);
  });

  return app;
}

/** The client aborted or reset the connection while its request was being read. */
function clientWentAway(err: FastifyError): boolean {
  return err.code === "ECONNRESET" || err.code === "ECONNABORTED" || err.message === "aborted";
}

/** Fastify's own errors (body parsing and limits) in the contract's terms. */
function problemOf(err: FastifyError, bodyLimit: number): Problem {
  switch (err.code) {
    case "FST_ERR_CTP_INVALID_JSON_BODY":
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return new Problem("invalid_json", "The request body is not valid JSON.");
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return new Problem("payload_too_large", `The request body exceeds the limit of ${bodyLimit} bytes.`, { details: { limit_bytes: bodyLimit } });
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return new Problem("unsupported_media_type", "Send the request body as application/json.");
  }
  return toProblem(err);
}

/** Writes a Problem in the surface's vocabulary; the cause of an internal one is logged, never sent. */
export function sendProblem(req: FastifyRequest, reply: FastifyReply, p: Problem, surface: Surface, cause?: unknown) {
  if (p.kind === "internal") req.log.error({ err: cause }, "internal error");
  for (const [k, v] of Object.entries(p.extra.headers ?? {})) reply.header(k, v);
  return reply.code(p.status(surface)).type("application/json; charset=utf-8").send(p.body(surface, req.id));
}
