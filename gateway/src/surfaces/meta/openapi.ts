// The OpenAPI 3.1 document, built at start from the route table and the proto descriptors,
// so it stays complete as routes are added.
import { describeProperties } from "./property-descriptions.js";
import type { DescMessage } from "@bufbuild/protobuf";
import { DeterminationSchema as StormwaterDetermination, CredentialResultSchema, GetCoverageResponseSchema as StormwaterCoverage, JurisdictionSchema, RequirementsResultSchema, file_permits_stormwater_v1_stormwater } from "@permits/proto/stormwater/v1/stormwater";
import { ActivitySchema, BatchItemSchema, DeterminationSchema as NwpDetermination, DistrictSchema, GetCoverageResponseSchema as NwpCoverage, PermitSchema, ProjectInputSchema, RulesetSchema, StateCertificationSchema } from "@permits/proto/nwp/v1/nwp";
import { FactChangesSchema } from "@permits/proto/common/v1/common";
import { addMessageSchemas, type SchemaNaming } from "../../http/json-schema.js";
import { Problem, type ProblemKind, type Surface } from "../../http/problems.js";
import { isMetered, spends, type RouteSpec } from "../../http/route-table.js";
import { HEADERS, operationIdOf, responseHeaders } from "./openapi-headers.js";
import type { FieldTable } from "../../http/fields.js";
import { SITE_FIELDS } from "../stormwater/site-input.js";
import { PROJECT_FIELDS } from "../nwp/project-input.js";
import { parameterExample, requestExample, responseExample } from "./openapi-examples.js";

/** The echoed input of an answer means what the request field of the same name means. */
function describeEcho(schema: Record<string, unknown> | undefined, table: FieldTable): void {
  const props = (schema?.properties ?? {}) as Record<string, Record<string, unknown>>;
  for (const [name, prop] of Object.entries(props)) if (!prop.description && table[name]?.description) prop.description = table[name].description;
}

const stormwaterNaming: SchemaNaming = { style: "snake", name: (d) => (d.file === file_permits_stormwater_v1_stormwater ? d.name : `Common${d.name}`) };
const nwpNaming: SchemaNaming = { style: "kebab", name: (d) => `Nwp${d.name}` };

// Each public error code with its status and meaning, per surface.
const ERROR_TEXT: Record<string, { kind: ProblemKind; text: string }> = {
  invalid_request: { kind: "invalid_request", text: "A field is missing, malformed or unknown; an unknown identifier lists the valid values (document 2: 422)." },
  invalid_json: { kind: "invalid_json", text: "The body is not valid JSON." },
  malformed_json: { kind: "invalid_json", text: "The body is not valid JSON." },
  unauthorized: { kind: "invalid_api_key", text: "A supplied key is invalid or revoked. A call without a key is never refused for that." },
  missing_api_key: { kind: "missing_api_key", text: "No key was sent; every document 2 endpoint needs one (the public sandbox key works)." },
  invalid_api_key: { kind: "invalid_api_key", text: "The key is not valid (forged, revoked, unknown subscription, or a document 1 key)." },
  not_found: { kind: "not_found", text: "No such endpoint, or no such resource; the valid values are attached." },
  method_not_allowed: { kind: "method_not_allowed", text: "The path exists but not for this method; Allow names the methods served." },
  payload_too_large: { kind: "payload_too_large", text: "The body exceeds the byte ceiling named in the message." },
  upgrade_required: { kind: "upgrade_required", text: "The endpoint needs a Pro key." },
  batch_too_large: { kind: "batch_too_large", text: "More than 100 projects in a batch." },
  rate_limited: { kind: "rate_limited", text: "A burst, volume or monthly allowance is exhausted; Retry-After says when to retry. No overage is billed." },
  rate_limit_exceeded: { kind: "rate_limited", text: "The allowance is exhausted; Retry-After and the message say when to retry." },
  entitlement_check_unavailable: { kind: "entitlement_check_unavailable", text: "The payment provider could not be reached; retry. It never means the subscription ended." },
  internal: { kind: "internal", text: "Unexpected server error; safe to retry; quote request_id." },
  internal_error: { kind: "internal", text: "Unexpected server error; worth retrying; quote requestId." },
  idempotency_conflict: { kind: "idempotency_conflict", text: "A request with this Idempotency-Key is still in progress (answered as invalid_request, HTTP 409); retry after Retry-After." },
};

const errorEnvelopes = {
  stormwater: {
    type: "object",
    required: ["error", "request_id"],
    properties: {
      error: {
        type: "object",
        required: ["code", "message"],
        description: "What went wrong.",
        properties: {
          code: { type: "string", description: "Stable error code; build on it, not on message." },
          message: { type: "string", description: "Human-readable explanation; may change." },
          details: { type: "object", description: "Structured detail where the code has some (e.g. unknown_keys and known_keys)." },
        },
      },
      request_id: { type: "string", description: "Correlation id of this response, also in the X-Request-Id header." },
    },
  },
  nwp: {
    type: "object",
    required: ["error"],
    properties: {
      error: {
        type: "object",
        required: ["code", "message", "requestId"],
        description: "What went wrong.",
        properties: {
          code: { type: "string", description: "Stable error code; build on it, not on message." },
          message: { type: "string", description: "Human-readable explanation; may change." },
          fields: {
            type: "array",
            description: "The fields at fault.",
            items: { type: "object", properties: { field: { type: "string", description: "The field's name." }, message: { type: "string", description: "What is wrong with it." } } },
          },
          knownValues: { type: "object", additionalProperties: { type: "array" }, description: "For a field with an unknown value, every value that would have worked." },
          docs: { type: "string", description: "Path to the documentation of this error code." },
          requestId: { type: "string", description: "Correlation id of this response, also in the X-Request-Id header." },
        },
      },
    },
  },
};

/**
 * The body's description is said once, on the request body: a reference page renders a schema's
 * description again inside each of its anyOf alternatives.
 */
function requestBodyOf(r: RouteSpec, body: Record<string, unknown>): Record<string, unknown> {
  const { description, ...schema } = body;
  return { required: true, ...(typeof description === "string" ? { description } : {}), content: { "application/json": { schema, ...requestExample(r) } } };
}

function alwaysSet(schema: Record<string, unknown>, field: string, type: Record<string, unknown>): void {
  (schema.properties as Record<string, unknown>)[field] = type;
  (schema.required as string[]).push(field);
}

export function buildOpenApi(routes: RouteSpec[], sandboxKey: string): Record<string, unknown> {
  const schemas: Record<string, Record<string, unknown>> = {};
  const sw: DescMessage[] = [StormwaterDetermination, RequirementsResultSchema, JurisdictionSchema, CredentialResultSchema];
  const nw: DescMessage[] = [NwpDetermination, BatchItemSchema, PermitSchema, DistrictSchema, StateCertificationSchema, ActivitySchema, ProjectInputSchema, RulesetSchema];
  for (const d of sw) addMessageSchemas(d, stormwaterNaming, schemas);
  for (const d of nw) addMessageSchemas(d, nwpNaming, schemas);
  // Pcn.required keeps proto `optional` (its presence on the wire cannot change) but is always set:
  // document 2 types it boolean.
  alwaysSet(schemas.NwpPcn, "required", { type: "boolean" });
  // GET /api/v1/coverage: the stormwater surface's envelope around both read-outs.
  const swCoverage = addMessageSchemas(StormwaterCoverage, { style: "snake", name: (d) => (d === StormwaterCoverage ? "StormwaterCoverage" : stormwaterNaming.name(d)) }, schemas);
  const nwpCoverage = addMessageSchemas(NwpCoverage, { style: "snake", name: (d) => (d === NwpCoverage ? "NwpCoverage" : nwpNaming.name(d)) }, schemas);
  schemas.Coverage = {
    type: "object",
    required: ["stormwater", "nwp"],
    properties: { stormwater: { $ref: `#/components/schemas/${swCoverage}` }, nwp: { $ref: `#/components/schemas/${nwpCoverage}` } },
  };
  // GET /api/v1/changes: the stormwater surface's envelope around one dataset's changes.
  addMessageSchemas(FactChangesSchema, { style: "snake", name: (d) => (d === FactChangesSchema ? "FactChanges" : stormwaterNaming.name(d)) }, schemas);
  schemas.JurisdictionList = {
    type: "object",
    required: ["count", "verifiedCount", "jurisdictions"],
    properties: { count: { type: "integer" }, verifiedCount: { type: "integer" }, coverageNote: { type: ["string", "null"] }, jurisdictions: { type: "array", items: { $ref: "#/components/schemas/Jurisdiction" } } },
  };
  schemas.NwpMeta = {
    type: "object",
    required: ["ruleset", "generatedAt", "requestId"],
    properties: { input: { $ref: "#/components/schemas/NwpProjectInput" }, ruleset: { $ref: "#/components/schemas/NwpRuleset" }, generatedAt: { type: "string", format: "date-time" }, requestId: { type: "string" }, count: { type: "integer" }, succeeded: { type: "integer" }, failed: { type: "integer" } },
  };
  // A batch item as the route writes it: the proto's BatchItem carries a BadRequest, which the
  // gateway renders in the NWP surface's error vocabulary.
  const itemError = { ...(errorEnvelopes.nwp.properties.error as Record<string, unknown>) } as { properties: Record<string, unknown> };
  const { requestId: _r, docs: _d, ...itemErrorProps } = itemError.properties;
  schemas.NwpBatchItem = {
    oneOf: [
      { type: "object", required: ["index", "ok", "input", "determination"], properties: { index: { type: "integer" }, ok: { const: true }, input: { $ref: "#/components/schemas/NwpProjectInput" }, determination: { $ref: "#/components/schemas/NwpDetermination" } } },
      { type: "object", required: ["index", "ok", "error"], properties: { index: { type: "integer" }, ok: { const: false }, error: { type: "object", required: ["code", "message"], properties: itemErrorProps } } },
    ],
  };
  schemas.StormwaterError = errorEnvelopes.stormwater;
  schemas.NwpError = errorEnvelopes.nwp;

  const responses: Record<string, unknown> = {};
  for (const [code, { kind, text }] of Object.entries(ERROR_TEXT)) {
    const surface: Surface = ["malformed_json", "missing_api_key", "invalid_api_key", "rate_limit_exceeded", "entitlement_check_unavailable", "internal_error", "batch_too_large", "upgrade_required"].includes(code) ? "nwp" : "stormwater";
    responses[code] = {
      description: `${code} (HTTP ${new Problem(kind, "").status(surface)}${code === "invalid_request" ? "; 422 on document 2 for an unknown identifier" : ""}): ${text}`,
      content: { "application/json": { schema: { $ref: `#/components/schemas/${surface === "nwp" ? "NwpError" : "StormwaterError"}` } } },
    };
  }

  const paths: Record<string, Record<string, unknown>> = {};
  const operationIds = new Set<string>();
  for (const r of routes) {
    const path = r.url.replace(/:(\w+)/g, "{$1}");
    const parameters = [
      ...Object.entries(r.doc.params ?? {}).map(([name, p]) => ({ name, in: "path", required: true, description: p.description, schema: p.schema, ...parameterExample(r, "params", name) })),
      ...Object.entries(r.doc.query ?? {}).map(([name, p]) => ({ name, in: "query", required: p.required ?? false, description: p.description, schema: p.schema, ...parameterExample(r, "query", name) })),
      ...Object.entries(r.doc.headers ?? {}).map(([name, p]) => ({ name, in: "header", required: false, description: p.description, schema: p.schema })),
    ];
    // A route that takes NWP (legacy) keys too answers them in the NWP surface's vocabulary.
    const errorSchema = r.access?.legacyKeys
      ? { anyOf: [{ $ref: "#/components/schemas/StormwaterError" }, { $ref: "#/components/schemas/NwpError" }] }
      : { $ref: `#/components/schemas/${r.surface === "nwp" ? "NwpError" : "StormwaterError"}` };
    const errorBody = { "application/json": { schema: errorSchema } };
    const operationId = operationIdOf(r);
    const byStatus: Record<string, unknown> = {
      [String(r.doc.success.status)]: {
        description: r.doc.success.description,
        content: { "application/json": { schema: r.doc.success.schema, ...responseExample(operationId, r.doc.success.status) }, ...(r.doc.html ? { "text/html": { schema: { type: "string" } } } : {}) },
      },
    };
    for (const code of r.doc.errors) {
      const { kind } = ERROR_TEXT[code];
      const status = String(new Problem(kind, "").status(r.surface));
      byStatus[status] = byStatus[status] && status !== String(r.doc.success.status)
        ? { description: `${(byStatus[status] as { description: string }).description}; ${code}`, content: (byStatus[status] as { content: unknown }).content }
        : { description: code, content: errorBody };
    }
    if (r.surface === "nwp" && r.doc.errors.includes("invalid_request")) {
      byStatus["422"] = { description: "invalid_request: an unknown identifier (district, activity, state, resource type) with every valid value in knownValues", content: { "application/json": { schema: { $ref: "#/components/schemas/NwpError" } } } };
    }
    // The HTTP layer answers these before any route runs (http/below-app.ts, Fastify's body
    // handling), so every operation can get them, in its own vocabulary.
    byStatus["400"] ??= { description: "invalid_request: the request is not valid HTTP/1.1, or its URL is not validly percent-encoded", content: errorBody };
    byStatus["431"] ??= { description: "invalid_request: the request headers are too large", content: errorBody };
    byStatus["417"] ??= { description: "invalid_request: an Expect header other than 100-continue", content: errorBody };
    if (r.doc.body) {
      byStatus["413"] ??= { description: "payload_too_large: the body is over the byte ceiling", content: errorBody };
      byStatus["415"] ??= { description: "invalid_request: the body is not application/json", content: errorBody };
    }
    // Static documents carry an ETag: a matching If-None-Match gets an empty 304.
    if (!isMetered(r) && r.method === "GET") byStatus["304"] ??= { description: "Not modified: If-None-Match matched the current ETag; no body." };
    if (r.access?.deferMetering) byStatus["409"] ??= { description: "idempotency_conflict: a request with this Idempotency-Key is still in progress; retry after Retry-After.", content: errorBody };
    // Every metered route depends on the key store and an engine; an outage is a retryable 503.
    if (isMetered(r)) byStatus["503"] ??= { description: `${r.surface === "nwp" ? "entitlement_check_unavailable or internal_error" : "internal"}: a dependency (the key store, the payment provider or an engine) is unavailable; retry after Retry-After.`, content: errorBody };
    // Answered at the socket: a client address over its connection cap, or a full or draining server.
    byStatus["429"] ??= { description: `${r.surface === "nwp" ? "rate_limit_exceeded" : "rate_limited"}: the client address holds more open connections than it may; retry after Retry-After`, content: errorBody };
    byStatus["503"] ??= { description: `${r.surface === "nwp" ? "internal_error" : "internal"}: the server is shutting down or holds as many connections as it can; retry after Retry-After`, content: errorBody };
    for (const [status, response] of Object.entries(byStatus)) {
      const ok = status === String(r.doc.success.status);
      byStatus[status] = { ...(response as object), headers: responseHeaders(r, Number(status), ok) };
    }
    if (r.doc.redirect) {
      byStatus["303"] = { description: r.doc.redirect, headers: { "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" }, Location: { $ref: "#/components/headers/Location" } } };
    }
    if (operationIds.has(operationId)) throw new Error(`duplicate OpenAPI operationId ${operationId} (${r.method} ${r.url}): give the route doc.operationId`);
    operationIds.add(operationId);
    paths[path] ??= {};
    paths[path][r.method.toLowerCase()] = {
      operationId,
      summary: r.doc.summary,
      ...(r.doc.description ? { description: r.doc.description } : {}),
      tags: [r.doc.tag ?? (r.surface === "nwp" ? "Section 404 (document 2)" : isMetered(r) ? "Stormwater (document 1)" : "Discovery")],
      ...(parameters.length ? { parameters } : {}),
      ...(r.doc.body ? { requestBody: requestBodyOf(r, r.doc.body) } : {}),
      responses: byStatus,
      security: r.doc.auth === "none" || r.doc.auth === "optional" ? [{}, { bearer: [] }, { apiKey: [] }] : [{ bearer: [] }, { apiKey: [] }],
      "x-metered": spends(r),
      ...(r.doc.auth === "pro" ? { "x-tier-required": "pro" } : {}),
    };
  }

  const doc = {
    openapi: "3.1.0",
    info: {
      title: "Permit Determination API",
      version: "1.0.0",
      description:
        `Which US stormwater permit governs a site and what it requires (document 1), and whether a wetland or waterway impact fits a Section 404 nationwide permit (document 2). Every answer cites its source; a value marked unverified must be shown as Unverified.\n\nTry it now with the public sandbox key \`${sandboxKey}\` (no signup; send it as \`Authorization: Bearer ${sandboxKey}\` or \`X-API-Key: ${sandboxKey}\`). Plans and limits: [/pricing](/pricing).`,
    },
    servers: [{ url: "/" }],
    paths,
    components: {
      schemas,
      responses,
      headers: HEADERS,
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: `Authorization: Bearer <key>. Try it with the public sandbox key ${sandboxKey}: no signup, works on both documents.` },
        apiKey: { type: "apiKey", in: "header", name: "X-API-Key", description: `X-API-Key: <key>. Try it with the public sandbox key ${sandboxKey}: no signup, works on both documents.` },
      },
    },
  };
  describeEcho(schemas.SiteInput, SITE_FIELDS);
  describeEcho(schemas.NwpProjectInput, PROJECT_FIELDS);
  describeProperties(doc);
  return doc;
}
