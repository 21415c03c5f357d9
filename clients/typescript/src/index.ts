// The typed client of the public API: openapi-fetch over the types openapi-typescript derives from
// GET /api/openapi (schema.ts, written by `npm run generate:client`). Every path of both surfaces
// is typed with its parameters, body, answer and error body; openapi-fetch does the requests.
import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./schema.js";

export type { components, operations, paths } from "./schema.js";

/** The stormwater surface's error body (stormwater and discovery routes): `{ error: { code, message, details? }, request_id }`. */
export type StormwaterError = components["schemas"]["StormwaterError"];
/** The NWP surface's error body (NWP routes, and shared routes called with an NWP legacy key): `{ error: { code, message, fields?, knownValues?, docs?, requestId } }`. */
export type NwpError = components["schemas"]["NwpError"];
export type ApiError = StormwaterError | NwpError;

export type PermitsClient = Client<paths>;

/**
 * `apiKey`: a stormwater-surface key (`svc_live_…`, `svc_test_…`) or the public sandbox key, which both
 * surfaces take; leave it out for the stormwater surface's anonymous tier. `legacyKey`: an NWP (legacy) live key
 * (`nwp_<subscription>_<signature>`). Both documents read a key from `Authorization: Bearer`, so
 * both are sent there; the two names say which document's key the client holds.
 */
export type PermitsClientOptions = {
  baseUrl: string;
  /** A fetch of your own (tests, proxies, retries); the global fetch by default. */
  fetch?: (input: Request) => Promise<Response>;
} & ({ apiKey?: string; legacyKey?: never } | { legacyKey: string; apiKey?: never });

export function createPermitsClient(options: PermitsClientOptions): PermitsClient {
  const key = options.apiKey ?? options.legacyKey;
  // The gateway answers a malformed credential 401; say so here, before any request is made.
  if (key !== undefined && !/^[\x21-\x7e]+$/.test(key)) throw new TypeError(`${options.apiKey !== undefined ? "apiKey" : "legacyKey"} must be a non-empty key of printable ASCII without spaces`);
  return createClient<paths>({
    baseUrl: options.baseUrl,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(key !== undefined ? { headers: { authorization: `Bearer ${key}` } } : {}),
  });
}

/** Which vocabulary an error body is in: the stormwater surface's carries `request_id` beside `error`. */
export function isNwpError(body: ApiError): body is NwpError {
  return !("request_id" in body);
}

/** Code, message and request id of an error body of either vocabulary (for logs and support). */
export function errorSummary(body: ApiError): { code: string; message: string; requestId: string } {
  const { code, message } = body.error;
  return { code, message, requestId: isNwpError(body) ? body.error.requestId : body.request_id };
}
