// The response headers and operation ids of the OpenAPI document: which header a response carries
// follows from the route's surface, whether it is metered, and the status.
import { isMetered, type RouteSpec } from "../../http/route-table.js";

const int = { type: "integer" };
const str = { type: "string" };

/** components.headers: every header the gateway sets on a route's responses. */
export const HEADERS: Record<string, { description: string; schema: Record<string, unknown> }> = {
  "X-Request-Id": { description: "This request's id (the caller's X-Request-Id when well formed, else a new one). On an idempotent replay it names the replaying request; the body keeps the original's.", schema: str },
  "X-RateLimit-Limit": { description: "Limit of the window closest to refusing (for a refusal: the window that refused).", schema: int },
  "X-RateLimit-Remaining": { description: "Requests left in that window.", schema: int },
  "X-RateLimit-Reset": { description: "When that window frees capacity, in Unix seconds.", schema: int },
  "RateLimit-Policy": { description: 'IETF draft field: every window of the caller\'s tier, e.g. "minute";q=60;w=60, "month";q=1000;w=2592000.', schema: str },
  RateLimit: { description: 'IETF draft field: the binding window\'s state, e.g. "minute";r=59;t=60.', schema: str },
  "X-Quota-Limit": { description: "Billable (live) keys only: the plan's monthly ceiling.", schema: int },
  "X-Quota-Used": { description: "Billable keys only: answered requests counted this calendar month (refused and failed requests are not).", schema: int },
  "X-Quota-Remaining": { description: "Billable keys only: answers left this calendar month.", schema: int },
  "X-Service-Tier": { description: "Document 2: the caller's tier, sandbox, pro or free (a lapsed Pro key); sandbox where no key was accepted.", schema: { type: "string", enum: ["sandbox", "pro", "free"] } },
  "Retry-After": { description: "Seconds to wait before retrying.", schema: int },
  "Idempotent-Replayed": { description: "true when this is the stored answer to an earlier request with the same Idempotency-Key.", schema: { type: "string", enum: ["true"] } },
  ETag: { description: "Validator for If-None-Match (weak where the body carries the request id).", schema: str },
  "Cache-Control": { description: "How long the document may be cached.", schema: str },
  Vary: { description: "The request headers the representation depends on.", schema: str },
  Location: { description: "Where a 303 sends the browser next (checkout's form posts).", schema: str },
};

const RATE = ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "RateLimit-Policy", "RateLimit", "X-Quota-Limit", "X-Quota-Used", "X-Quota-Remaining"];

/** The headers a response of `route` with `status` carries, as references into components.headers. */
export function responseHeaders(route: RouteSpec, status: number, success: boolean): Record<string, { $ref: string }> {
  const names = ["X-Request-Id"];
  const validated = success || status === 304;
  if (isMetered(route)) names.push(...RATE);
  else if (validated) names.push("ETag", "Cache-Control");
  if (route.surface === "nwp" && isMetered(route) && !route.access?.ipPolicy) names.push("X-Service-Tier");
  if (status === 429 || status === 503 || status === 409) names.push("Retry-After");
  if (success && route.access?.deferMetering) names.push("Idempotent-Replayed");
  if (validated && route.doc.html) names.push("Vary");
  return Object.fromEntries(names.map((n) => [n, { $ref: `#/components/headers/${n}` }]));
}

/** `getJurisdictionsByCode` from GET /api/v1/jurisdictions/:code; a route may name its own. */
export function operationIdOf(route: RouteSpec): string {
  if (route.doc.operationId) return route.doc.operationId;
  const words = route.url
    .replace(/^\/api\/v1/, "")
    .split("/")
    .filter(Boolean)
    .map((seg) => (seg.startsWith(":") ? `By${cap(seg.slice(1))}` : seg.split(/[^A-Za-z0-9]+/).map(cap).join("")));
  return `${route.method.toLowerCase()}${words.join("") || "Index"}`;
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
