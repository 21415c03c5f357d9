// A tool call is the REST request for the same capability, made in process with inject():
// the MCP request's own key headers and client address go with it, so authentication, tiers,
// the one rate-limit decision, parsing rules and errors are the route's, never a second copy.
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { Problem } from "../http/problems.js";
import type { RouteSpec } from "../http/route-table.js";
import { countUnverified, type ToolDef } from "./tools.js";

/** The headers that carry a key; nothing else of the MCP request reaches the route. */
const KEY_HEADERS = ["authorization", "x-api-key"] as const;

export async function callRoute(app: FastifyInstance, outer: FastifyRequest, tool: ToolDef, route: RouteSpec, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  const rest: Record<string, unknown> = { ...args };
  const missing: string[] = [];
  // Path parameters come out of the arguments; everything else is the body or the query.
  const url = route.url.replace(/:(\w+)/g, (_m, name: string) => {
    const v = rest[name];
    delete rest[name];
    if ((typeof v === "string" && v.trim() !== "") || (typeof v === "number" && Number.isFinite(v))) return encodeURIComponent(String(v));
    missing.push(name);
    return "_";
  });
  if (missing.length) {
    // An empty path segment would reach another route (…/jurisdictions/ is the list), so a
    // missing or non-text path parameter is refused here, in the route's own vocabulary.
    const p = new Problem("invalid_request", `${missing.join(", ")} is required (a string).`, {
      details: { field: missing[0] },
      fields: missing.map((field) => ({ field, message: `${field} is required` })),
    });
    return errorResult(p.code(route.surface), p.message, p.body(route.surface, outer.id), undefined);
  }

  const headers: Record<string, string> = {};
  for (const h of KEY_HEADERS) {
    const v = outer.headers[h];
    if (typeof v === "string") headers[h] = v;
  }
  const res = await app.inject({
    method: route.method,
    url,
    remoteAddress: outer.ip,
    headers: route.method === "POST" ? { ...headers, "content-type": "application/json" } : headers,
    ...(route.method === "POST" ? { payload: JSON.stringify(rest) } : { query: queryOf(rest) }),
  });

  let body: Record<string, unknown>;
  try {
    body = res.json();
  } catch {
    return errorResult("internal", `The ${route.method} ${route.url} endpoint answered ${res.statusCode} without JSON.`, undefined, undefined);
  }
  if (res.statusCode >= 200 && res.statusCode < 300) {
    const unverified = countUnverified(body);
    const summary = [
      tool.summarize(body),
      unverified ? `${unverified} value(s) in this answer are marked unverified: show each as Unverified, never as fact.` : "",
    ].filter(Boolean).join(" ");
    return {
      content: [
        { type: "text", text: summary },
        { type: "text", text: JSON.stringify(body) },
      ],
      structuredContent: body,
    };
  }
  const err = (body.error ?? {}) as { code?: string; message?: string };
  const retryAfter = res.headers["retry-after"];
  return errorResult(err.code ?? "internal", err.message ?? `HTTP ${res.statusCode}`, body, typeof retryAfter === "string" ? retryAfter : undefined);
}

/** Query text as REST reads it: null is "not stated" (empty), objects stay visibly malformed. */
function queryOf(args: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(args)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, v === null ? "" : typeof v === "object" ? JSON.stringify(v) : String(v)]),
  );
}

/**
 * A refused call is a tool result with isError (never a JSON-RPC error): the surface's code and
 * message first, then the surface's whole error body (details, fields, knownValues) as JSON.
 * It carries no structuredContent: that is reserved for the tool's outputSchema.
 */
function errorResult(code: string, message: string, body: unknown, retryAfter: string | undefined): CallToolResult {
  const retry = retryAfter ? ` Retry after ${retryAfter} seconds (do not retry sooner).` : "";
  return {
    isError: true,
    content: [
      { type: "text", text: `${code}: ${message}${message.includes("Retry after") ? "" : retry}` },
      ...(body ? [{ type: "text" as const, text: JSON.stringify(retryAfter ? { ...(body as object), retryAfterSeconds: Number(retryAfter) } : body) }] : []),
    ],
  };
}
