// What every response must be, whatever was sent: the contract of documents 1 and 2 for errors,
// a request id, no 5xx but the documented 503, and no exception text.
import { unknownPathSurface, type RouteSpec } from "@permits/gateway";
import { readErrorBody, type ErrorSurface } from "../support/error-body.js";
import type { RawAnswer } from "../support/raw-http.js";
import type { Endpoint } from "./hostile.js";

type Surface = ErrorSurface;

/** The stable codes each document lists (document 1 "Errors", document 2 "Errors" and "Authentication"). */
const CODES: Record<Surface, Set<string>> = {
  stormwater: new Set(["invalid_request", "invalid_json", "unauthorized", "not_found", "method_not_allowed", "payload_too_large", "rate_limited", "internal", "upgrade_required"]),
  nwp: new Set(["missing_api_key", "invalid_api_key", "invalid_request", "malformed_json", "not_found", "method_not_allowed", "payload_too_large", "upgrade_required", "batch_too_large", "rate_limit_exceeded", "internal_error", "entitlement_check_unavailable"]),
};
/** The 503s the documents promise: document 1's `internal` with Retry-After, document 2's two retryable codes. */
const RETRYABLE_503: Record<Surface, Set<string>> = { stormwater: new Set(["internal"]), nwp: new Set(["internal_error", "entitlement_check_unavailable"]) };

// Stack frames, source positions, Node error names and codes, framework codes, addresses.
const EXCEPTION_TEXT = /\bat [\w$.<>[\]]+ \(|\.(?:ts|js|mjs|cjs):\d+|node_modules|\b(?:Type|Reference|Range|Syntax|Internal)Error\b|\bE(?:CONNREFUSED|CONNRESET|PIPE|ADDRINUSE)\b|FST_ERR|Cannot read propert|is not a function|undefined is not|\[object Object\]/;

export interface Route {
  /** A path the table serves, as Fastify spells it (`:param`). */
  url: string;
  /** "either": the route serves document 2 keys in document 2's vocabulary (its OpenAPI errors say so). */
  surface: Surface | "either";
}

/**
 * Routes from the discovery index (`{param}` → `:param`), with /mcp left to its own checks;
 * `bilingual`: paths whose OpenAPI error schemas admit both vocabularies.
 */
export function routesOf(endpoints: (Endpoint & { surface: string })[], bilingual: Set<string>): Route[] {
  return endpoints.map((e) => ({ url: e.path.replace(/\{(\w+)\}/g, ":$1"), surface: bilingual.has(e.path) ? "either" : e.surface.startsWith("nwp") ? "nwp" : "stormwater" }));
}

export function responseChecker(routes: Route[]) {
  const surfaceOf = unknownPathSurface(routes as unknown as RouteSpec[]) as (url: string) => Route["surface"];
  const pathOf = (target: string) => {
    const p = target.startsWith("/") ? target.split("?")[0] : "/";
    try {
      return decodeURIComponent(p);
    } catch {
      return p;
    }
  };

  /** Every way `answer` breaks the contract, as short sentences (empty when it keeps it). */
  return function violations(target: string, method: string, answer: RawAnswer): string[] {
    const found: string[] = [];
    const path = pathOf(target);
    const surface = surfaceOf(path);
    const requestId = answer.headers["x-request-id"];
    if (!requestId) found.push("no X-Request-Id header");
    if (EXCEPTION_TEXT.test(answer.body)) found.push(`exception text in the body: ${EXCEPTION_TEXT.exec(answer.body)![0]}`);
    if (EXCEPTION_TEXT.test(Object.values(answer.headers).join("\n"))) found.push("exception text in a header");
    if (method === "HEAD" || answer.status === 204 || answer.status === 304) return found;

    let body: unknown;
    const isJson = /^application\/json/.test(answer.headers["content-type"] ?? "");
    if (isJson) {
      try {
        body = JSON.parse(answer.body);
      } catch {
        found.push("Content-Type says JSON but the body does not parse");
        return found;
      }
    }
    if (answer.status >= 500 && answer.status !== 503) found.push(`${answer.status}: no 5xx but the documented 503`);
    if (answer.status < 400) return found;
    // The app's pages (issue 40) answer a person: their refusals are HTML pages in plain words.
    const appPage = path === "/" || path === "/app" || path.startsWith("/app/");
    if (appPage && /^text\/html/.test(answer.headers["content-type"] ?? "")) return found;

    // /mcp speaks JSON-RPC: an error there is a JSON-RPC error object, or (for what no MCP
    // handler reads, such as a refused key or an oversized body) the gateway's vocabulary.
    const mcp = path.replace(/\/+$/, "") === "/mcp"; // the router ignores a trailing slash
    if (mcp && isJsonRpcError(body)) return found;
    const e = errorOf(body, answer);
    if (!e) {
      found.push(`${answer.status}: the body is in neither error vocabulary (${answer.headers["content-type"] ?? "no content type"})`);
      return found;
    }
    const expected = mcp || surface === "either" ? e.surface : surface;
    if (e.surface !== expected) found.push(`${answer.status} ${e.code}: answered in document ${e.surface === "nwp" ? 2 : 1}'s vocabulary on a document ${expected === "nwp" ? 2 : 1} path`);
    if (!CODES[e.surface].has(e.code)) found.push(`${answer.status}: "${e.code}" is not a code of document ${e.surface === "nwp" ? 2 : 1}`);
    if (e.requestId !== requestId) found.push(`the body's request id ${JSON.stringify(e.requestId)} is not the header's ${JSON.stringify(requestId)}`);
    if (answer.status === 503 && (!RETRYABLE_503[e.surface].has(e.code) || !answer.headers["retry-after"])) found.push(`503 ${e.code} without Retry-After or outside the documented 503s`);
    return found;
  };
}

function isJsonRpcError(body: unknown): boolean {
  const one = (m: unknown) => typeof m === "object" && m !== null && (m as { jsonrpc?: unknown }).jsonrpc === "2.0" && Number.isInteger((m as { error?: { code?: unknown } }).error?.code);
  return Array.isArray(body) ? body.length > 0 && body.every(one) : one(body);
}

/** The error's vocabulary, code and request id, or undefined when the body is in neither shape. */
function errorOf(body: unknown, answer: RawAnswer): { surface: Surface; code: string; requestId: unknown } | undefined {
  if (!/^application\/json/.test(answer.headers["content-type"] ?? "")) return undefined;
  const e = readErrorBody(body);
  return "problem" in e ? undefined : e;
}
