// Access control as a route-configured plugin, after fastify-rate-limit: a route asks for it with
// `config.access` (options.ts); an onRoute hook merges that with the defaults once and attaches
// the hooks to that route only, so public routes run none of it. Who is calling (identify.ts) is
// settled in onRequest, before the body is read, so a refused call costs almost nothing; then the
// ratelimit service makes one decision over every window of the caller's tier (meter.ts). Handlers
// that meter or read the standing themselves use the reply decorators.
import fp from "fastify-plugin";
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler, RouteOptions } from "fastify";
import type { Principal } from "@permits/proto/entitlement/v1/entitlement";
import type { DecideResponse, GetUsageResponse } from "@permits/proto/ratelimit/v1/ratelimit";
import type { AppDeps } from "../deps.js";
import { Problem, type Surface } from "../http/problems.js";
import { tierWord, writeTierHeader } from "./headers.js";
import { identify } from "./identify.js";
import { KeylessCallers } from "@permits/entitlement";
import { meter, PRICING_PAGE, refundUnanswered, withStanding, writeStanding, type MeterDeps, type QuotaCharge } from "./meter.js";
import { routeAccess, type RouteAccess } from "./options.js";

export { entitlementOutage } from "./identify.js";
export { tierWord } from "./headers.js";
export { withIdempotency } from "./idempotency.js";

declare module "fastify" {
  interface FastifyRequest {
    principal: Principal | null;
    quotaCharge: QuotaCharge | null;
    /** The surface answering this request: the route's, unless the route takes both key schemes. */
    surface: Surface | null;
  }
  interface FastifyReply {
    /** Spends one unit (or `cost`) of the caller's budget, writes the rate headers, refuses with 429. */
    meter(cost?: number, policy?: string): Promise<DecideResponse>;
    /** Writes the caller's current windows as headers, spending nothing. */
    writeStanding(): Promise<GetUsageResponse>;
    /** Puts the caller's standing on a refusal made before metering; returns `err` to throw. */
    withStanding(err: unknown): Promise<unknown>;
  }
}

export const accessControl = fp<AppDeps>(
  async (app, deps) => {
    const meterDeps: MeterDeps = deps;
    // No key and the sandbox key are decided in the gateway, without the entitlement service.
    const keyless = new KeylessCallers(deps.config.SANDBOX_KEY);
    app.decorateRequest("principal", null);
    app.decorateRequest("quotaCharge", null);
    app.decorateRequest("surface", null);
    app.decorateReply("meter", function (this: FastifyReply, cost?: number, policy?: string) {
      return meter(meterDeps, this.request, this, cost, policy);
    });
    app.decorateReply("writeStanding", function (this: FastifyReply) {
      return writeStanding(meterDeps, this.request, this);
    });
    app.decorateReply("withStanding", function (this: FastifyReply, err: unknown) {
      return withStanding(meterDeps, this.request, this, err);
    });

    const refund = refundUnanswered(meterDeps);
    app.addHook("onRoute", (routeOptions) => {
      const options = routeOptions.config?.access;
      if (options === undefined) return;
      const route = routeAccess(routeOptions.url ?? routeOptions.path, routeOptions.config?.surface, options);
      attach(routeOptions, "onRequest", controlAccess(meterDeps, keyless, route));
      // Only a route that spends can hold a quota charge to give back.
      if (!route.noSpend) attach(routeOptions, "onSend", refund);
    });
  },
  { name: "access-control", fastify: "5.x" },
);

/** Appends a hook to the route's own, in a new array (the route's HEAD twin shares the old one). */
function attach(routeOptions: RouteOptions, name: "onRequest" | "onSend", hook: unknown): void {
  const own: unknown = routeOptions[name];
  const list = own === undefined ? [] : Array.isArray(own) ? own : [own];
  (routeOptions as unknown as Record<string, unknown>)[name] = [...list, hook];
}

/** The route's onRequest hook: identify the caller, hold it to the route's tiers, then spend. */
function controlAccess(deps: MeterDeps, keyless: KeylessCallers, route: RouteAccess): onRequestAsyncHookHandler {
  return async function controlAccess(req: FastifyRequest, reply: FastifyReply) {
    let principal: Principal;
    try {
      principal = req.principal = await identify(deps.clients.entitlement, keyless, req, route);
    } catch (e) {
      throw await withStanding(deps, req, reply, e);
    }
    if (route.ipPolicy) {
      await meter(deps, req, reply, 1, route.ipPolicy);
      return;
    }
    writeTierHeader(reply, req.surface!, principal.tier);
    if (route.tiers && !route.tiers.includes(principal.tier)) {
      const refusal = new Problem("upgrade_required", `This endpoint needs a Pro key; this key is on the ${tierWord(principal.tier)} tier. Plans and the Buy buttons: ${PRICING_PAGE}.`);
      throw await withStanding(deps, req, reply, refusal);
    }
    if (route.noSpend) return;
    // A keyed caller's idempotent replay is not charged: the route meters once it knows.
    if (route.deferMetering && principal.keyId !== undefined && req.headers["idempotency-key"] !== undefined) return;
    await meter(deps, req, reply);
  };
}
