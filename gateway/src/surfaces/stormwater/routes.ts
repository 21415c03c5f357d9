// The stormwater determination surface (its contract is document 1).
import type { FastifyRequest } from "fastify";
import {
  CredentialResultSchema,
  DeterminationSchema,
  JurisdictionSchema,
  RequirementsResultSchema,
} from "@permits/proto/stormwater/v1/stormwater";
import type { AppDeps } from "../../deps.js";
import { parseFields, type FieldTable } from "../../http/fields.js";
import { toPublicJson } from "../../http/public-json.js";
import type { RouteSpec } from "../../http/route-table.js";
import { stormwaterEnvelope } from "./envelope.js";
import { withIdempotency } from "../../access/index.js";
import { SITE_FIELDS } from "./site-input.js";
import { stormwaterSchemas as S } from "./openapi-schemas.js";

const CREDENTIAL_QUERY: FieldTable = { acres: { type: "number", minimum: 0, nullable: true, description: "Site acres, to tell whether a threshold gate applies." } };

export function parseSite(input: unknown, source: "json" | "query") {
  return parseFields(SITE_FIELDS, input, source);
}

const COMMON_ERRORS = ["invalid_request", "unauthorized", "rate_limited", "internal"];

export function stormwaterRoutes(deps: AppDeps): RouteSpec[] {
  const { stormwater } = deps.clients;
  const surface = "stormwater" as const;
  const query = (req: FastifyRequest) => req.query as Record<string, unknown>;
  return [
    {
      method: "POST",
      url: "/api/v1/determine",
      surface,
      access: { deferMetering: true },
      doc: {
        summary: "Stormwater determination for a site",
        description: "Which stormwater permit governs the site, what it requires, with a citation behind every requirement.",
        body: S.siteInput,
        headers: { "Idempotency-Key": { description: "Opaque key (at most 255 characters); a keyed caller replaying it receives the stored result, unbilled.", schema: { type: "string", maxLength: 255 } } },
        success: { status: 200, description: "The determination.", schema: S.envelope("Determination") },
        messages: [DeterminationSchema],
        example: { body: { state: "NM", activity: "construction", acres: 3 } },
        errors: ["invalid_json", "payload_too_large", ...COMMON_ERRORS],
        auth: "optional",
      },
      handler: async (req, reply) =>
        withIdempotency(deps, req, reply, async () => {
          const res = await stormwater.determine({ site: parseSite(req.body, "json") });
          return stormwaterEnvelope(req, toPublicJson(DeterminationSchema, res.determination, "snake"));
        }),
    },
    {
      method: "GET",
      url: "/api/v1/requirements",
      surface,
      access: {},
      doc: {
        summary: "Requirements for a site",
        description: "Same engine and parser as POST /api/v1/determine, projected to the requirements, with the coverage verdict, screens and notices.",
        query: S.siteQuery,
        success: { status: 200, description: "The requirements.", schema: S.envelope("RequirementsResult") },
        messages: [RequirementsResultSchema],
        example: { query: { state: "NM", activity: "construction", acres: 3 } },
        errors: COMMON_ERRORS,
        auth: "optional",
      },
      handler: async (req) => {
        const res = await stormwater.getRequirements({ site: parseSite(query(req), "query") });
        return stormwaterEnvelope(req, toPublicJson(RequirementsResultSchema, res.result, "snake"));
      },
    },
    {
      method: "GET",
      url: "/api/v1/jurisdictions",
      surface,
      access: {},
      doc: {
        summary: "Every jurisdiction held",
        description: "All 56 state, territory and DC codes with their permitting authority, governing permit and confidence.",
        success: { status: 200, description: "The jurisdiction list.", schema: S.envelope("JurisdictionList") },
        messages: [JurisdictionSchema],
        errors: COMMON_ERRORS,
        auth: "optional",
      },
      handler: async (req) => {
        parseFields({}, query(req), "query");
        const res = await stormwater.listJurisdictions({});
        return stormwaterEnvelope(req, {
          count: res.count,
          verifiedCount: res.verifiedCount,
          coverageNote: res.coverageNote ?? null,
          jurisdictions: res.jurisdictions.map((j) => toPublicJson(JurisdictionSchema, j, "snake")),
        });
      },
    },
    {
      method: "GET",
      url: "/api/v1/jurisdictions/:code",
      surface,
      access: {},
      doc: {
        summary: "One jurisdiction",
        description: "An unverified jurisdiction is answered 200 with confidence unverified and the agency to confirm with; an unknown code is invalid_request with known_states.",
        params: { code: { description: "Two-letter state, territory or DC code.", schema: { type: "string" } } },
        success: { status: 200, description: "The jurisdiction.", schema: S.envelope("Jurisdiction") },
        messages: [JurisdictionSchema],
        example: { params: { code: "NM" } },
        errors: COMMON_ERRORS,
        auth: "optional",
      },
      handler: async (req) => {
        parseFields({}, query(req), "query");
        const { code } = req.params as { code: string };
        const res = await stormwater.getJurisdiction({ code });
        return stormwaterEnvelope(req, toPublicJson(JurisdictionSchema, res.jurisdiction, "snake"));
      },
    },
    {
      method: "GET",
      url: "/api/v1/credentials/:code",
      surface,
      access: {},
      doc: {
        summary: "Preparer credential gate of a state",
        description: "Whether a credentialed preparer is required, the qualifying routes, and whether a generated document is a deliverable or a draft. `unknown` is never to be read as open.",
        params: { code: { description: "Two-letter state, territory or DC code.", schema: { type: "string" } } },
        query: { acres: { description: CREDENTIAL_QUERY.acres.description, schema: { type: "number", minimum: 0 } } },
        success: { status: 200, description: "The credential result.", schema: S.envelope("CredentialResult") },
        messages: [CredentialResultSchema],
        example: { params: { code: "NM" }, query: { acres: 3 } },
        errors: COMMON_ERRORS,
        auth: "optional",
      },
      handler: async (req) => {
        const { acres } = parseFields(CREDENTIAL_QUERY, query(req), "query") as { acres?: number };
        const { code } = req.params as { code: string };
        const res = await stormwater.getCredentialGate({ state: code, acres });
        return stormwaterEnvelope(req, toPublicJson(CredentialResultSchema, res.result, "snake"));
      },
    },
  ];
}
