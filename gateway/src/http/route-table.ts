// Every public route is declared once, through `defineRoute`, so the discovery index, the
// OpenAPI document, the 405 guards and the vocabulary of each path all come from one table.
import type { DescMessage } from "@bufbuild/protobuf";
import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { Problem, type Surface } from "./problems.js";

export type HttpMethod = "GET" | "POST";

export interface RouteDoc {
  summary: string;
  description?: string;
  /** OpenAPI operationId; derived from the method and path when absent. */
  operationId?: string;
  /** The route also answers text/html (content negotiation on Accept). */
  html?: boolean;
  /** JSON Schemas for OpenAPI; responses keyed by status. */
  params?: Record<string, { description: string; schema: Record<string, unknown> }>;
  query?: Record<string, { description: string; required?: boolean; schema: Record<string, unknown> }>;
  body?: Record<string, unknown>;
  headers?: Record<string, { description: string; schema: Record<string, unknown> }>;
  success: { status: number; description: string; schema: Record<string, unknown> };
  /**
   * The proto messages the answer carries: the OpenAPI document adds their schemas, and those of
   * the messages they reach, as components, under `name` where `success.schema` refers to one by
   * a name of its own.
   */
  messages?: Array<DescMessage | { message: DescMessage; name: string }>;
  errors: string[];
  /** The OpenAPI tag, where the surface's own does not fit (checkout). */
  tag?: string;
  /** A browser's form post is answered 303 to this place (Location); JSON callers get `success`. */
  redirect?: string;
  /** Key requirement as a caller reads it. */
  auth: "optional" | "required" | "pro" | "none";
  /**
   * A request that works, shown in the OpenAPI document and sent by /docs' "Test Request". Its
   * answer is never written here: scripts/generate-examples.mjs sends it to the engines and
   * records what they answer in gateway/openapi/response-examples.json.
   */
  example?: { params?: Record<string, string | number>; query?: Record<string, string | number>; body?: unknown };
}

export interface RouteSpec {
  method: HttpMethod;
  url: string;
  surface: Surface;
  /**
   * Identify the caller and meter the route (the access plugin); absent: public and unmetered, like
   * discovery, OpenAPI and pricing. Its type is the route option access/ declares on Fastify's
   * route config (as @fastify/rate-limit declares `config.rateLimit`), so the table needs no access/.
   */
  access?: FastifyContextConfig["access"];
  doc: RouteDoc;
  handler: (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
}

/** The route identifies its caller and answers with the caller's rate headers. */
export function isMetered(r: RouteSpec): boolean {
  return r.access !== undefined;
}

/** The route counts against the caller's budget (the usage read-out is checked but spends nothing). */
export function spends(r: RouteSpec): boolean {
  return r.access !== undefined && !r.access.noSpend;
}

declare module "fastify" {
  interface FastifyContextConfig {
    /** The vocabulary the route answers in (its errors, and metering's policy names). */
    surface?: Surface;
  }
}

/** The table's routes on the app, with their 405 guards. */
export const routeTable = fp<{ routes: RouteSpec[] }>(async (app, { routes }) => registerRoutes(app, routes), { name: "route-table" });

/** Methods a known path answers with 405 when it does not serve them; others get 404. */
const GUARDED_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "QUERY"];

function registerRoutes(app: FastifyInstance, routes: RouteSpec[]): void {
  for (const r of routes) {
    app.route({ method: r.method, url: r.url, config: { surface: r.surface, access: r.access }, handler: r.handler });
  }
  // Fastify answers a known path with the wrong method as 404 by design; the contract wants 405.
  const byUrl = new Map<string, { surface: Surface; methods: Set<string> }>();
  for (const r of routes) {
    const entry = byUrl.get(r.url) ?? { surface: r.surface, methods: new Set<string>() };
    entry.methods.add(r.method);
    if (r.method === "GET") entry.methods.add("HEAD");
    byUrl.set(r.url, entry);
  }
  for (const [url, { surface, methods }] of byUrl) {
    const allow = [...methods].sort();
    const missing = GUARDED_METHODS.filter((m) => !methods.has(m));
    if (missing.length === 0) continue;
    const refuse = async () => {
      throw new Problem("method_not_allowed", `This path serves ${allow.join(", ")} only.`, {
        details: { allow },
        knownValues: { method: allow },
        headers: { allow: allow.join(", ") },
      });
    };
    // Refused in onRequest, before Fastify reads a body (a QUERY without Content-Type, say).
    app.route({ method: missing, url, config: { surface }, onRequest: refuse, handler: refuse });
  }
}

/**
 * The vocabulary of a path no route serves, from the table itself: the surface of the route that
 * shares the most leading path segments with it (a parameter segment matches any), preferring a
 * route that is wholly a prefix of the path, then the earlier route; document 1 where nothing is
 * shared beyond the common prefix.
 */
export function unknownPathSurface(routes: RouteSpec[]): (url: string) => Surface {
  const split = (u: string) => u.split("?")[0].split("/").filter(Boolean);
  const table = routes.map((r) => ({ segments: split(r.url), surface: r.surface }));
  return (url) => {
    const path = split(url);
    let best: { n: number; whole: boolean; surface: Surface } = { n: 0, whole: false, surface: "stormwater" };
    for (const r of table) {
      let n = 0;
      while (n < r.segments.length && n < path.length && (r.segments[n].startsWith(":") || r.segments[n] === path[n])) n++;
      const whole = n === r.segments.length;
      if (n > best.n || (n === best.n && whole && !best.whole)) best = { n, whole, surface: r.surface };
    }
    return best.surface;
  };
}
