// The Fastify gateway: the server's options, then one plugin per concern of the HTTP plumbing
// (gateway/src/http/), access control (gateway/src/access/) and the routes of every surface. It
// holds no domain logic: it parses public JSON, calls the services and writes each surface's
// envelope. Order matters where hooks run in order: draining before CORS, both before access.
import fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from "fastify";
import { Registry } from "prom-client";
import type { AppDeps } from "./deps.js";
import { requestIdFor } from "./http/request-id.js";
import { sendProblem } from "./http/send-problem.js";
import { routeTable, unknownPathSurface, type RouteSpec } from "./http/route-table.js";
import { clientErrorHandler, frameworkErrors, unreadBodies } from "./http/below-app.js";
import { socketEdges } from "./http/socket-edges.js";
import { jsonBodies } from "./http/content-type.js";
import { publicJsonReplies } from "./http/serializer.js";
import { draining } from "./http/draining.js";
import { crossOrigin } from "./http/cors.js";
import { requestLog } from "./http/request-log.js";
import { notFound } from "./http/not-found.js";
import { errorHandler } from "./http/error-handler.js";
import { gatewayInstruments, serveMetrics } from "./http/metrics.js";
import { accessControl } from "./access/index.js";
import { stormwaterRoutes } from "./surfaces/stormwater/routes.js";
import { nwpRoutes } from "./surfaces/nwp/routes.js";
import { metaRoutes } from "./surfaces/meta/routes.js";
import { accountRoutes } from "./surfaces/account/routes.js";
import { coverageRoutes } from "./surfaces/coverage/routes.js";
import { changesRoutes } from "./surfaces/changes/routes.js";
import { docsPage } from "./surfaces/meta/docs-page.js";
import { mcpTransport } from "./mcp/plugin.js";
import { internalRpc } from "./rpc/plugin.js";
import { isLoopback } from "@permits/rpc";
import { CheckoutCatalogue } from "./surfaces/checkout/catalogue.js";
import { checkoutRoutes } from "./surfaces/checkout/routes.js";
import { checkoutPlugin } from "./surfaces/checkout/plugin.js";
import { appPlugin } from "./surfaces/app/plugin.js";
import { startRulesChecks } from "./rules-check.js";

export async function buildApp(given: AppDeps): Promise<FastifyInstance> {
  const metrics = given.metrics ?? new Registry();
  const deps: AppDeps = { ...given, metrics, instruments: gatewayInstruments(metrics) };
  const { config } = deps;
  const routes: RouteSpec[] = [...stormwaterRoutes(deps), ...nwpRoutes(deps), ...accountRoutes(deps), ...coverageRoutes(deps), ...changesRoutes(deps)];
  // Checkout (issue 32): its own context (raw bodies); listed with the rest for /api/v1 and OpenAPI.
  const catalogue = new CheckoutCatalogue(deps, isLoopback(config.HOST));
  const checkout = checkoutRoutes(deps, catalogue);
  const allRoutes = [...routes, ...checkout, ...metaRoutes(deps, [...routes, ...checkout], catalogue)];
  // The vocabulary of answers written before routing (or with no route), from the table.
  const surfaceOfPath = unknownPathSurface(allRoutes);

  const app = fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: config.BODY_LIMIT_BYTES,
    trustProxy: config.TRUST_PROXY,
    genReqId: requestIdFor,
    // One request line is written by the request-log plugin instead of Fastify's two.
    logController: new LogController({ requestIdLogLabel: "requestId", disableRequestLogging: true }),
    // Requests arriving while draining get the surface's 503 (the draining plugin).
    return503OnClosing: false,
    // Limits for slow and abusive clients (docs/configuration.md); Node checks the head and
    // request timeouts every second rather than its default 30.
    // A request without Host reaches the app, which answers it in the contract (socket-edges).
    http: { maxHeaderSize: config.MAX_HEADER_BYTES, headersTimeout: config.HEADERS_TIMEOUT_MS, connectionsCheckingInterval: 1000, requireHostHeader: false },
    requestTimeout: config.REQUEST_TIMEOUT_MS,
    keepAliveTimeout: config.KEEP_ALIVE_TIMEOUT_MS,
    clientErrorHandler: clientErrorHandler(() => surfaceOfPath),
    // Fastify's option is generic over its server types; the handler reads only id, url and reply.
    frameworkErrors: frameworkErrors(() => surfaceOfPath, sendProblem) as never,
    routerOptions: { ignoreTrailingSlash: true },
  });

  await app.register(jsonBodies);
  await app.register(publicJsonReplies);
  // First of the hooks, so that every hook and route after it runs inside the request's span.
  // Loaded only when on (its instrumentation library takes ~0.2 s to load).
  if (deps.tracing) await (await import("./http/tracing.js")).traceRequests(app);
  await app.register(draining, { surfaceOfPath });
  await app.register(socketEdges, { total: config.MAX_CONNECTIONS, perAddress: config.MAX_CONNECTIONS_PER_ADDRESS, drainMs: config.KEEP_ALIVE_TIMEOUT_MS, surfaceOfPath });
  await app.register(crossOrigin);
  await app.register(unreadBodies);
  await app.register(requestLog);
  // Before any route: a route takes the error handler in place when it is added.
  await app.register(errorHandler, { bodyLimit: config.BODY_LIMIT_BYTES, surfaceOfPath, routes: allRoutes });
  await app.register(notFound, { routes: allRoutes, surfaceOfPath });
  // Before the routes: its onRoute hook attaches access control to the routes that ask for it.
  await app.register(accessControl, deps);
  await app.register(serveMetrics, { registry: metrics });
  await app.register(docsPage, { sandboxKey: config.SANDBOX_KEY });
  await app.register(routeTable, { routes: allRoutes.filter((r) => !checkout.includes(r)) });
  await app.register(checkoutPlugin, { routes: checkout });
  await app.register(mcpTransport, { deps, routes });
  // The app (issue 40): its sessions are kept by the sites service, as its records are.
  await app.register(appPlugin, { deps });
  if (deps.engines) await app.register(internalRpc, { engines: deps.engines, readMaxBytes: config.BODY_LIMIT_BYTES, logger: deps.logger });

  // Sites whose rules changed are marked once the gateway serves (not in inject()-only use).
  let stopRulesChecks: (() => void) | undefined;
  app.addHook("onListen", async () => {
    stopRulesChecks ??= startRulesChecks(deps);
  });
  app.addHook("onClose", async () => stopRulesChecks?.());

  app.get("/healthz", async () => ({ status: "ok" }));
  app.get("/readyz", async (_req, reply) => {
    const checks = await deps.ready();
    const ok = Object.values(checks).every(Boolean);
    return reply.code(ok ? 200 : 503).send({ status: ok ? "ready" : "not_ready", checks });
  });

  return app;
}
