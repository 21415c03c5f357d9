// Examples for the OpenAPI document. The requests are written with their routes (RouteDoc.example);
// the answers are never written by hand: scripts/generate-examples.mjs sends each example request
// to a gateway and its engines and records the answer in gateway/openapi/response-examples.json,
// keyed by operationId. Read once at start.
import { existsSync, readFileSync } from "node:fs";
import type { RouteSpec } from "../../http/route-table.js";

// gateway/openapi/, from src/surfaces/meta as from dist/surfaces/meta.
const file = new URL("../../../openapi/response-examples.json", import.meta.url);
export const RESPONSE_EXAMPLES: Record<string, { status: number; body: unknown }> = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")).examples : {};

/** The example value of a path or query parameter, when the route gives one. */
export function parameterExample(r: RouteSpec, where: "params" | "query", name: string): { example?: string | number } {
  const value = r.doc.example?.[where]?.[name];
  return value === undefined ? {} : { example: value };
}

/** The example body of a route's request, when it has one. */
export function requestExample(r: RouteSpec): { example?: unknown } {
  return r.doc.example?.body === undefined ? {} : { example: r.doc.example.body };
}

/** The recorded answer to the route's example request, on the media type of its success. */
export function responseExample(operationId: string, status: number): { example?: unknown } {
  const recorded = RESPONSE_EXAMPLES[operationId];
  return recorded && recorded.status === status ? { example: recorded.body } : {};
}
