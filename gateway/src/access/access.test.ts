// The access plugin attaches itself per route, from `config.access` (as fastify-rate-limit reads
// `config.rateLimit`): a route without it runs none of access control (no entitlement or
// ratelimit call, no rate headers), a metered route runs it once, and its HEAD twin once too.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Interceptor } from "@connectrpc/connect";
import fastify, { type FastifyInstance } from "fastify";
import type { AppDeps } from "../deps.js";
import { accessControl } from "./index.js";
import { startEmbedded, type Embedded } from "../../../test/support/embedded.js";

/** The gateway's calls to the two services access control uses, in order. */
const accessCalls: string[] = [];
const recordAccessCalls: Interceptor = (next) => async (req) => {
  const service = req.service.typeName.split(".").pop()!;
  if (service === "EntitlementService" || service === "RateLimitService") accessCalls.push(`${service}.${req.method.name}`);
  return next(req);
};

describe("access control is attached only to the routes that ask for it", () => {
  let gw: Embedded;
  beforeAll(async () => {
    gw = await startEmbedded({}, { interceptors: { client: [recordAccessCalls] } });
  }, 60_000);
  afterAll(async () => gw?.close());

  const send = async (method: "GET" | "HEAD" | "POST", url: string) => {
    accessCalls.length = 0;
    const res = await gw.app.inject({ method, url, remoteAddress: "192.0.2.29" });
    return { status: res.statusCode, calls: [...accessCalls], limit: res.headers["x-ratelimit-limit"], policy: res.headers["ratelimit-policy"] };
  };

  it.each([
    ["GET", "/api/v1/coverage"],
    ["GET", "/healthz"],
    ["HEAD", "/healthz"],
    ["GET", "/api/v1"],
    ["GET", "/api/v1/pricing"],
  ] as const)("%s %s: no caller is identified, nothing is spent, no rate headers", async (method, url) => {
    expect(await send(method, url)).toEqual({ status: 200, calls: [], limit: undefined, policy: undefined });
  });

  // A caller without a key is identified in the gateway itself (no key check to make).
  it.each(["GET", "HEAD"] as const)("%s /api/v1/jurisdictions: identified without the key store, one decision, the anonymous tier's headers", async (method) => {
    expect(await send(method, "/api/v1/jurisdictions")).toEqual({
      status: 200,
      calls: ["RateLimitService.Decide"],
      limit: "4",
      policy: '"minute";q=4;w=60, "day";q=20;w=86400',
    });
  });

  it("GET /api/v1/usage (noSpend): identified, the standing read, nothing decided", async () => {
    expect(await send("GET", "/api/v1/usage")).toMatchObject({ status: 200, calls: ["RateLimitService.GetUsage"], limit: "4" });
  });

  it("a call with a key is checked by the key store (a refused key gets the address's standing, nothing spent)", async () => {
    accessCalls.length = 0;
    const res = await gw.app.inject({ method: "GET", url: "/api/v1/jurisdictions", headers: { authorization: "Bearer svc_live_notakey" }, remoteAddress: "192.0.2.29" });
    expect(res.statusCode).toBe(401);
    expect(accessCalls).toEqual(["EntitlementService.Authenticate", "RateLimitService.GetUsage"]);
  });

  it("the route table's 405 guard of a metered path runs no access control", async () => {
    expect(await send("POST", "/api/v1/jurisdictions")).toEqual({ status: 405, calls: [], limit: undefined, policy: undefined });
  });

});

describe("the onRoute hook", () => {
  /** The hooks each added route ends up with, as a later onRoute hook sees them. */
  async function routesOf(add: (app: FastifyInstance) => void) {
    const app = fastify();
    await app.register(accessControl, { config: { SANDBOX_KEY: "svc_sandbox_public" } } as AppDeps); // wiring only: no request is sent
    const seen: Record<string, { onRequest: number; onSend: number }> = {};
    const count = (h: unknown) => (h === undefined ? 0 : Array.isArray(h) ? h.length : 1);
    app.addHook("onRoute", (r) => {
      seen[`${String(r.method)} ${r.url}`] = { onRequest: count(r.onRequest), onSend: count(r.onSend) };
    });
    add(app);
    await app.ready();
    await app.close();
    return seen;
  }
  const ok = async () => "ok";

  it("adds one onRequest and one onSend hook to a metered route and its HEAD twin, none to a public one, and keeps the route's own", async () => {
    const own = async () => undefined;
    expect(
      await routesOf((app) => {
        app.get("/metered", { config: { surface: "stormwater", access: {} } }, ok);
        app.get("/own-hook", { config: { surface: "nwp", access: {} }, onRequest: [own] }, ok);
        app.get("/public", { config: { surface: "stormwater" } }, ok);
        app.get("/usage", { config: { surface: "stormwater", access: { noSpend: true } } }, ok);
      }),
    ).toEqual({
      // A HEAD twin also carries Fastify's own onSend hook (which drops the body).
      "GET /metered": { onRequest: 1, onSend: 1 },
      "HEAD /metered": { onRequest: 1, onSend: 2 },
      "GET /own-hook": { onRequest: 2, onSend: 1 },
      "HEAD /own-hook": { onRequest: 2, onSend: 2 },
      "GET /public": { onRequest: 0, onSend: 0 },
      "HEAD /public": { onRequest: 0, onSend: 1 },
      // Nothing spent, so no quota charge to give back.
      "GET /usage": { onRequest: 1, onSend: 0 },
      "HEAD /usage": { onRequest: 1, onSend: 1 },
    });
  });

  it("refuses at start a metered route that names no surface", async () => {
    await expect(routesOf((app) => app.get("/nowhere", { config: { access: {} } }, ok))).rejects.toThrow("Route /nowhere asks for access control but names no surface (config.surface).");
  });
});
