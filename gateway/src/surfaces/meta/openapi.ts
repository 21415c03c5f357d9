// The OpenAPI 3.1 document, built at start from the route table and the proto descriptors,
// so it stays complete as routes are added. A response field's description is its comment in the
// .proto (http/json-schema.ts); only the envelopes' own fields are described here and in the routes.
import type { DescMessage } from "@bufbuild/protobuf";
import { file_permits_stormwater_v1_stormwater } from "@permits/proto/stormwater/v1/stormwater";
import { file_permits_nwp_v1_nwp, ProjectInputSchema, RulesetSchema } from "@permits/proto/nwp/v1/nwp";
import { addMessageSchemas, type SchemaNaming } from "../../http/json-schema.js";
import { ERROR_TEXT, Problem } from "../../http/problems.js";
import { isMetered, spends, type RouteSpec } from "../../http/route-table.js";
import { HEADERS, operationIdOf, responseHeaders } from "./openapi-headers.js";
import type { FieldTable } from "../../http/fields.js";
import { SITE_FIELDS } from "../stormwater/site-input.js";
import { PROJECT_FIELDS } from "../nwp/project-input.js";
import { parameterExample, requestExample, responseExample } from "./openapi-examples.js";

/**
 * The echoed input of an answer means what the request field of the same name means: the field
 * table's words win over the input message's proto comments.
 */
function describeEcho(schema: Record<string, unknown> | undefined, table: FieldTable): void {
  const props = (schema?.properties ?? {}) as Record<string, Record<string, unknown>>;
  for (const [name, prop] of Object.entries(props)) if (table[name]?.description) prop.description = table[name].description;
}

const stormwaterNaming: SchemaNaming = { style: "snake", name: (d) => (d.file === file_permits_stormwater_v1_stormwater ? d.name : `Common${d.name}`) };
const nwpNaming: SchemaNaming = { style: "kebab", name: (d) => `Nwp${d.name}` };

/**
 * The components of a message a route declares, and of those it reaches: enum words in the route's
 * surface style; names Nwp-prefixed for a message of the NWP protos (or of the common protos on
 * the NWP surface), else as the stormwater surface names them; `name` for the declared message.
 */
function addRouteMessage(r: RouteSpec, declared: NonNullable<RouteSpec["doc"]["messages"]>[number], schemas: Record<string, Record<string, unknown>>): void {
  const { message, name } = "message" in declared ? declared : { message: declared, name: undefined };
  const nwpNames = message.file === file_permits_nwp_v1_nwp || (message.file !== file_permits_stormwater_v1_stormwater && r.surface === "nwp");
  const naming = nwpNames ? nwpNaming : stormwaterNaming;
  addMessageSchemas(message, { style: r.surface === "nwp" ? nwpNaming.style : stormwaterNaming.style, name: (d: DescMessage) => (d === message && name ? name : naming.name(d)) }, schemas);
}

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

/** A field the service always sets though its proto presence is explicit: not nullable, and required. */
function alwaysSet(schema: Record<string, unknown>, field: string): void {
  const props = schema.properties as Record<string, Record<string, unknown>>;
  const { oneOf: _o, ...rest } = props[field];
  props[field] = { ...rest, type: (rest.type as string[]).filter((t) => t !== "null")[0] };
  (schema.required as string[]).push(field);
}

export function buildOpenApi(routes: RouteSpec[], sandboxKey: string): Record<string, unknown> {
  const schemas: Record<string, Record<string, unknown>> = {};
  for (const r of routes) for (const m of r.doc.messages ?? []) addRouteMessage(r, m, schemas);
  // Pcn.required keeps proto `optional` (its presence on the wire cannot change) but is always set:
  // document 2 types it boolean.
  if (schemas.NwpPcn) alwaysSet(schemas.NwpPcn, "required");
  // GET /api/v1/coverage: the stormwater surface's envelope around both read-outs.
  schemas.Coverage = {
    type: "object",
    required: ["stormwater", "nwp"],
    properties: {
      stormwater: { $ref: "#/components/schemas/StormwaterCoverage", description: "What the stormwater dataset holds, per basis and per jurisdiction." },
      nwp: { $ref: "#/components/schemas/NwpCoverage", description: "What the nationwide permit dataset holds, per basis and per permit." },
    },
  };
  schemas.JurisdictionList = {
    type: "object",
    required: ["count", "verifiedCount", "jurisdictions"],
    properties: {
      count: { type: "integer", description: "Number of items in jurisdictions." },
      verifiedCount: { type: "integer", description: "How many of the jurisdictions are verified." },
      coverageNote: { type: ["string", "null"], description: "Note on what the list covers; null where there is none." },
      jurisdictions: { type: "array", items: { $ref: "#/components/schemas/Jurisdiction" }, description: "Every jurisdiction held, each with its permitting authority and confidence." },
    },
  };
  // The NWP surface's meta, on every answer of that surface: the ruleset, and a determination's input.
  for (const m of [RulesetSchema, ProjectInputSchema]) addMessageSchemas(m, nwpNaming, schemas);
  schemas.NwpMeta = {
    type: "object",
    required: ["ruleset", "generatedAt", "requestId"],
    properties: {
      input: { $ref: "#/components/schemas/NwpProjectInput", description: "The normalised request input, on a determination." },
      ruleset: { $ref: "#/components/schemas/NwpRuleset", description: "The nationwide permit ruleset the answer was computed against." },
      generatedAt: { type: "string", format: "date-time", description: "When the response was generated (date-time)." },
      requestId: { type: "string", description: "The request id, also in the X-Request-Id header." },
      count: { type: "integer", description: "Number of projects in the batch (batch responses only)." },
      succeeded: { type: "integer", description: "Number of projects that were decided (batch responses only)." },
      failed: { type: "integer", description: "Number of projects that were refused (batch responses only)." },
    },
  };
  // A batch item as the route writes it: the proto's BatchItem carries a BadRequest, which the
  // gateway renders in the NWP surface's error vocabulary.
  const itemError = { ...(errorEnvelopes.nwp.properties.error as Record<string, unknown>) } as { properties: Record<string, unknown> };
  const { requestId: _r, docs: _d, ...itemErrorProps } = itemError.properties;
  schemas.NwpBatchItem = {
    oneOf: [
      {
        type: "object",
        required: ["index", "ok", "input", "determination"],
        properties: {
          index: { type: "integer", description: "Zero-based position of the project in the request's projects list." },
          ok: { const: true, description: "true: the project was valid and decided." },
          input: { $ref: "#/components/schemas/NwpProjectInput", description: "The normalised project input." },
          determination: { $ref: "#/components/schemas/NwpDetermination", description: "The determination for this project." },
        },
      },
      {
        type: "object",
        required: ["index", "ok", "error"],
        properties: {
          index: { type: "integer", description: "Zero-based position of the project in the request's projects list." },
          ok: { const: false, description: "false: the project was refused; error says why, and the rest of the batch is unaffected." },
          error: { type: "object", required: ["code", "message"], properties: itemErrorProps, description: "Why this project was refused, with its field errors, in place of a determination." },
        },
      },
    ],
  };
  schemas.StormwaterError = errorEnvelopes.stormwater;
  schemas.NwpError = errorEnvelopes.nwp;

  const responses: Record<string, unknown> = {};
  for (const [code, { kind, surface, text }] of Object.entries(ERROR_TEXT)) {
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
      tags: [r.doc.tag ?? (r.surface === "nwp" ? "Section 404 nationwide permits (NWP)" : isMetered(r) ? "Stormwater" : "Discovery")],
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
        `Which US stormwater permit governs a site and what it requires, and whether a wetland or waterway impact fits a Section 404 nationwide permit (NWP). Every answer cites its source; a value marked unverified must be shown as Unverified.\n\nTry it now with the public sandbox key \`${sandboxKey}\` (no signup; send it as \`Authorization: Bearer ${sandboxKey}\` or \`X-API-Key: ${sandboxKey}\`). Plans and limits: [/pricing](/pricing).`,
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
  return doc;
}
