// The one catalogue of public errors, and the one place where internal ConnectErrors become
// them. A route belongs to a surface, and the surface decides the vocabulary:
//   the stormwater surface:  { error: { code, message, details? }, request_id }
//   the NWP surface:         { error: { code, message, fields?, knownValues?, docs?, requestId } }
import { Code, ConnectError } from "@connectrpc/connect";
import { badRequestOf, resourceNotFoundOf, ViolationReason } from "@permits/rules";
import type { BadRequest } from "@permits/proto/common/v1/common";

export type Surface = "stormwater" | "nwp";

/** The surface whose vocabulary a path's answer takes (from the route table, once built). */
export type SurfaceOfPath = (url: string) => Surface;

/** What went wrong, independent of vocabulary. Each kind has one status and one code per surface. */
export type ProblemKind =
  | "invalid_request"
  | "unknown_value"
  | "invalid_json"
  | "missing_api_key"
  | "invalid_api_key"
  | "not_found"
  | "method_not_allowed"
  | "payload_too_large"
  | "headers_too_large"
  | "request_timeout"
  | "expectation_failed"
  | "too_many_connections"
  | "unsupported_media_type"
  | "upgrade_required"
  | "batch_too_large"
  | "rate_limited"
  | "entitlement_check_unavailable"
  | "idempotency_conflict"
  | "internal";

const catalogue: Record<ProblemKind, { status: number; nwpStatus?: number; stormwater: string; nwp: string }> = {
  invalid_request: { status: 400, stormwater: "invalid_request", nwp: "invalid_request" },
  // The NWP surface answers a well-formed but unknown identifier with 422 (document 2) and the valid values.
  unknown_value: { status: 400, nwpStatus: 422, stormwater: "invalid_request", nwp: "invalid_request" },
  invalid_json: { status: 400, stormwater: "invalid_json", nwp: "malformed_json" },
  // The stormwater surface has one code for any bad key; the NWP surface tells a missing key from a bad one.
  missing_api_key: { status: 401, stormwater: "unauthorized", nwp: "missing_api_key" },
  invalid_api_key: { status: 401, stormwater: "unauthorized", nwp: "invalid_api_key" },
  not_found: { status: 404, stormwater: "not_found", nwp: "not_found" },
  method_not_allowed: { status: 405, stormwater: "method_not_allowed", nwp: "method_not_allowed" },
  payload_too_large: { status: 413, stormwater: "payload_too_large", nwp: "payload_too_large" },
  // Neither document names a code for oversized headers: the generic bad-request code, with 431.
  headers_too_large: { status: 431, stormwater: "invalid_request", nwp: "invalid_request" },
  request_timeout: { status: 408, stormwater: "invalid_request", nwp: "invalid_request" },
  // An Expect header other than 100-continue (RFC 9110, 10.1.1): neither document names a code.
  expectation_failed: { status: 417, stormwater: "invalid_request", nwp: "invalid_request" },
  // One client address holds more open connections than it may: the rate-limit code, with Retry-After.
  too_many_connections: { status: 429, stormwater: "rate_limited", nwp: "rate_limit_exceeded" },
  unsupported_media_type: { status: 415, stormwater: "invalid_request", nwp: "invalid_request" },
  upgrade_required: { status: 403, stormwater: "upgrade_required", nwp: "upgrade_required" },
  batch_too_large: { status: 400, stormwater: "invalid_request", nwp: "batch_too_large" },
  rate_limited: { status: 429, stormwater: "rate_limited", nwp: "rate_limit_exceeded" },
  entitlement_check_unavailable: { status: 503, stormwater: "internal", nwp: "entitlement_check_unavailable" },
  idempotency_conflict: { status: 409, stormwater: "invalid_request", nwp: "invalid_request" },
  internal: { status: 500, stormwater: "internal", nwp: "internal_error" },
};

/**
 * Every public error code the OpenAPI document lists (components/responses), with the surface it is
 * written for, its kind (hence its status, from the catalogue above) and what it means.
 */
export const ERROR_TEXT: Record<string, { kind: ProblemKind; surface: Surface; text: string }> = {
  invalid_request: { kind: "invalid_request", surface: "stormwater", text: "A field is missing, malformed or unknown; an unknown identifier lists the valid values (document 2: 422)." },
  invalid_json: { kind: "invalid_json", surface: "stormwater", text: "The body is not valid JSON." },
  malformed_json: { kind: "invalid_json", surface: "nwp", text: "The body is not valid JSON." },
  unauthorized: { kind: "invalid_api_key", surface: "stormwater", text: "A supplied key is invalid or revoked. A call without a key is never refused for that." },
  missing_api_key: { kind: "missing_api_key", surface: "nwp", text: "No key was sent; every document 2 endpoint needs one (the public sandbox key works)." },
  invalid_api_key: { kind: "invalid_api_key", surface: "nwp", text: "The key is not valid (forged, revoked, unknown subscription, or a document 1 key)." },
  not_found: { kind: "not_found", surface: "stormwater", text: "No such endpoint, or no such resource; the valid values are attached." },
  method_not_allowed: { kind: "method_not_allowed", surface: "stormwater", text: "The path exists but not for this method; Allow names the methods served." },
  payload_too_large: { kind: "payload_too_large", surface: "stormwater", text: "The body exceeds the byte ceiling named in the message." },
  upgrade_required: { kind: "upgrade_required", surface: "nwp", text: "The endpoint needs a Pro key." },
  batch_too_large: { kind: "batch_too_large", surface: "nwp", text: "More than 100 projects in a batch." },
  rate_limited: { kind: "rate_limited", surface: "stormwater", text: "A burst, volume or monthly allowance is exhausted; Retry-After says when to retry. No overage is billed." },
  rate_limit_exceeded: { kind: "rate_limited", surface: "nwp", text: "The allowance is exhausted; Retry-After and the message say when to retry." },
  entitlement_check_unavailable: { kind: "entitlement_check_unavailable", surface: "nwp", text: "The payment provider could not be reached; retry. It never means the subscription ended." },
  internal: { kind: "internal", surface: "stormwater", text: "Unexpected server error; safe to retry; quote request_id." },
  internal_error: { kind: "internal", surface: "nwp", text: "Unexpected server error; worth retrying; quote requestId." },
  idempotency_conflict: { kind: "idempotency_conflict", surface: "stormwater", text: "A request with this Idempotency-Key is still in progress (answered as invalid_request, HTTP 409); retry after Retry-After." },
};

export interface FieldError {
  field: string;
  message: string;
}

export class Problem extends Error {
  constructor(
    readonly kind: ProblemKind,
    message: string,
    readonly extra: {
      /** The stormwater surface's `details`. */
      details?: Record<string, unknown>;
      /** The NWP surface's `fields` and `knownValues`. */
      fields?: FieldError[];
      knownValues?: Record<string, unknown[]>;
      headers?: Record<string, string>;
      /** Overrides the catalogue status (a 503 that is `internal` on the stormwater surface, say). */
      status?: number;
    } = {},
  ) {
    super(message);
  }

  status(surface: Surface): number {
    const entry = catalogue[this.kind];
    return this.extra.status ?? (surface === "nwp" ? (entry.nwpStatus ?? entry.status) : entry.status);
  }

  code(surface: Surface): string {
    return catalogue[this.kind][surface];
  }

  body(surface: Surface, requestId: string): unknown {
    const code = this.code(surface);
    if (surface === "stormwater") {
      return { error: { code, message: this.message, ...(this.extra.details ? { details: this.extra.details } : {}) }, request_id: requestId };
    }
    return {
      error: {
        code,
        message: this.message,
        ...(this.extra.fields?.length ? { fields: this.extra.fields } : {}),
        ...(this.extra.knownValues && Object.keys(this.extra.knownValues).length ? { knownValues: this.extra.knownValues } : {}),
        docs: `/api/openapi#/components/responses/${code}`,
        requestId,
      },
    };
  }
}

/** Any error to a Problem. Unexpected errors become `internal`, and their text stays out. */
export function toProblem(err: unknown): Problem {
  if (err instanceof Problem) return err;
  if (!(err instanceof ConnectError)) return new Problem("internal", "An unexpected error occurred. It is safe to retry; quote the request id.");
  switch (err.code) {
    case Code.InvalidArgument:
      return fromBadRequest(err);
    case Code.NotFound: {
      const nf = resourceNotFoundOf(err);
      return new Problem("not_found", err.rawMessage, {
        details: nf ? { resource: nf.resource, valid_values: nf.validValues } : undefined,
        knownValues: nf ? { [nf.resource]: nf.validValues } : undefined,
      });
    }
    case Code.Unauthenticated:
      return new Problem("invalid_api_key", "The API key is not valid.");
    case Code.PermissionDenied:
      return new Problem("upgrade_required", err.rawMessage);
    case Code.Unavailable:
    case Code.DeadlineExceeded: {
      return new Problem("internal", "A dependency is temporarily unavailable. Retry shortly; quote the request id.", {
        status: 503,
        headers: { "retry-after": retryAfterOf(err) },
      });
    }
    default:
      return new Problem("internal", "An unexpected error occurred. It is safe to retry; quote the request id.");
  }
}

/** Retry-After of an answer to a dependency that is not answering: the service's own (its breaker's, say), else a second. */
export function retryAfterOf(err: ConnectError): string {
  return err.metadata.get("retry-after") ?? "1";
}

function fromBadRequest(err: ConnectError): Problem {
  const br = badRequestOf(err);
  return br ? problemOfBadRequest(err.rawMessage, br) : new Problem("invalid_request", err.rawMessage);
}

/** A BadRequest detail in the contract's terms (also used for refused items of a batch). */
export function problemOfBadRequest(message: string, br: BadRequest): Problem {
  const details: Record<string, unknown> = {};
  const knownValues: Record<string, string[]> = {};
  if (br.unknownKeys.length) {
    details.unknown_keys = br.unknownKeys;
    details.known_keys = br.knownKeys;
  }
  for (const v of br.violations) {
    if (v.knownValues.length === 0) continue;
    knownValues[v.field] = v.knownValues;
    // Document 1 names the jurisdiction catalogue `known_states`; other catalogues `known_values`.
    if (v.field === "state") details.known_states = v.knownValues;
    else details.known_values = v.knownValues;
  }
  if (br.violations.length) details.field = br.violations[0].field;
  const fields = br.violations.map((v) => ({ field: v.field, message: v.description }));
  if (br.unknownKeys.length) for (const k of br.unknownKeys) fields.push({ field: k, message: `${k} is not a known field` });
  const unknownOnly = br.violations.length > 0 && br.violations.every((v) => v.reason === ViolationReason.UNKNOWN_VALUE);
  return new Problem(unknownOnly ? "unknown_value" : "invalid_request", message, { details, fields, knownValues });
}
