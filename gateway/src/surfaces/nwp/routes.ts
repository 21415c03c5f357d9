// The NWP surface: Section 404 nationwide permits (its contract is document 2).
import type { DescMessage } from "@bufbuild/protobuf";
import type { FastifyRequest } from "fastify";
import { invalidArgument, ViolationReason } from "@permits/rules";
import { Tier } from "@permits/proto/entitlement/v1/entitlement";
import {
  ActivitySchema,
  BatchItemSchema,
  DeterminationSchema,
  DistrictSchema,
  PermitSchema,
  ProjectInputSchema,
  StateCertificationSchema,
  type BatchItem,
  type BatchProject,
  type Determination,
} from "@permits/proto/nwp/v1/nwp";
import type { AppDeps } from "../../deps.js";
import { parseFields } from "../../http/fields.js";
import { fieldTableSchema } from "../../http/json-schema.js";
import { Problem, problemOfBadRequest, toProblem } from "../../http/problems.js";
import { toPublicJson } from "../../http/public-json.js";
import type { RouteSpec } from "../../http/route-table.js";
import { determinationsOf } from "./batch-lists.js";
import { nwpEnvelope } from "./envelope.js";
import { MAX_BATCH, PROJECT_FIELDS, PROJECT_REQUIRED } from "./project-input.js";

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const envelope = (data: Record<string, unknown>) => ({
  type: "object",
  required: ["data", "meta"],
  properties: { data: { description: "The answer.", ...data }, meta: { ...ref("NwpMeta"), description: "The ruleset the answer was computed against, when it was generated, and the request id." } },
});
/** A list answer: its items, and how many there are. */
const list = (key: string, component: string, description: string) => ({
  type: "object",
  properties: { count: { type: "integer", description: `Number of items in ${key}.` }, [key]: { type: "array", items: ref(component), description } },
});
const ERRORS = ["missing_api_key", "invalid_api_key", "rate_limit_exceeded", "entitlement_check_unavailable", "internal_error"];
const projectSchema = fieldTableSchema(PROJECT_FIELDS, PROJECT_REQUIRED);
/** The project the examples of /api/openapi send (and /docs' "Test Request"). */
const EXAMPLE_PROJECT = { state: "CA", district: "SPK", activity: "residential-development", aquaticResourceType: "wetland", permanentImpactAcres: 0.3 };

export function parseProject(input: unknown) {
  return parseFields(PROJECT_FIELDS, input, "json");
}

export function nwpRoutes(deps: AppDeps): RouteSpec[] {
  const { nwp } = deps.clients;
  const surface = "nwp" as const;
  const noQuery = (req: FastifyRequest) => parseFields({}, req.query, "query");
  const lookup = (url: string, summary: string, data: Record<string, unknown>, message: DescMessage, params: RouteSpec["doc"]["params"], handler: RouteSpec["handler"], errors: string[] = [], example?: RouteSpec["doc"]["example"]): RouteSpec => ({
    method: "GET",
    url,
    surface,
    access: {},
    doc: { summary, params, success: { status: 200, description: summary, schema: envelope(data) }, messages: [message], errors: [...errors, ...ERRORS], auth: "required", example },
    handler,
  });

  return [
    {
      method: "POST",
      url: "/api/v1/determine/nwp",
      surface,
      access: {},
      doc: {
        summary: "Section 404 nationwide permit determination",
        description: "Screens one impact against the nationwide permits mapped to its activity. Unknown district, activity, state or resource type: 422 with every valid value.",
        body: projectSchema,
        success: { status: 200, description: "The determination.", schema: envelope(ref("NwpDetermination")) },
        messages: [DeterminationSchema],
        example: { body: EXAMPLE_PROJECT },
        errors: ["invalid_request", "malformed_json", "payload_too_large", ...ERRORS],
        auth: "required",
      },
      handler: async (req) => {
        const res = await nwp.determine({ project: parseProject(req.body) });
        return nwpEnvelope(req, deps.clock, toPublicJson(DeterminationSchema, res.determination, "kebab"), res.ruleset, {
          input: toPublicJson(ProjectInputSchema, res.input, "kebab"),
        });
      },
    },
    {
      method: "POST",
      url: "/api/v1/determine/batch",
      surface,
      access: { tiers: [Tier.PRO] },
      doc: {
        summary: "Batch of up to 100 NWP determinations (Pro only)",
        description: "Each project is validated and decided independently; results keep input order; one invalid project never discards the batch. Counts as one metered unit.",
        body: { type: "object", additionalProperties: false, required: ["projects"], properties: { projects: { type: "array", maxItems: MAX_BATCH, items: projectSchema, description: "The projects to determine, each an NWP determination request; at most 100. Each is validated and decided independently, and results keep this order." } } },
        success: { status: 200, description: "One item per project, in input order.", schema: { type: "object", properties: { data: { type: "array", items: ref("NwpBatchItem"), description: "One item per project, in input order." }, meta: { ...ref("NwpMeta"), description: "The ruleset, when the answer was generated, the request id, and the batch's count, succeeded and failed." } } } },
        // The proto item; meta/openapi.ts writes its error in this surface's vocabulary (NwpBatchItem).
        messages: [BatchItemSchema],
        errors: ["invalid_request", "malformed_json", "payload_too_large", "upgrade_required", "batch_too_large", ...ERRORS],
        example: { body: { projects: [EXAMPLE_PROJECT, { ...EXAMPLE_PROJECT, permanentImpactAcres: 2 }] } },
        auth: "pro",
      },
      handler: async (req) => {
        const { projects } = parseBatchBody(req.body);
        const items: unknown[] = new Array(projects.length);
        const valid: BatchProject[] = [];
        projects.forEach((p, index) => {
          try {
            valid.push({ index, project: parseProject(p) } as BatchProject);
          } catch (e) {
            items[index] = failedItem(index, e);
          }
        });
        const res = await nwp.determineBatch({ projects: valid, shareLists: true });
        const determinationOf = determinationsOf(res);
        for (const it of res.items) {
          items[it.index] = it.ok
            ? decidedItem(it, determinationOf)
            : failedItem(it.index, it.error ? problemOfBadRequest("invalid project", it.error) : new Problem("invalid_request", "invalid project"));
        }
        const succeeded = items.filter((i) => (i as { ok: boolean }).ok).length;
        return nwpEnvelope(req, deps.clock, items, res.ruleset, { count: items.length, succeeded, failed: items.length - succeeded });
      },
    },
    lookup("/api/v1/nwp", "The whole 2026 nationwide permit ruleset", list("permits", "NwpPermit", "Every nationwide permit of the ruleset, with its limits and notification conditions."), PermitSchema, undefined, async (req) => {
      noQuery(req);
      const res = await nwp.listPermits({});
      return nwpEnvelope(req, deps.clock, { count: res.permits.length, permits: res.permits.map((p) => toPublicJson(PermitSchema, p, "kebab")) }, res.ruleset);
    }),
    lookup("/api/v1/nwp/:number", "One nationwide permit", ref("NwpPermit"), PermitSchema, { number: { description: "NWP number; 26, 47 and 56 are reserved (404 with the valid set).", schema: { type: "integer" } } }, async (req) => {
      noQuery(req);
      const res = await nwp.getPermit({ number: permitNumber((req.params as { number: string }).number) });
      return nwpEnvelope(req, deps.clock, toPublicJson(PermitSchema, res.permit, "kebab"), res.ruleset);
    }, ["invalid_request", "not_found"], { params: { number: 29 } }),
    lookup("/api/v1/district", "All 38 Corps districts", list("districts", "NwpDistrict", "Every Corps district, with the states it serves and whether its regional conditions are compiled."), DistrictSchema, undefined, async (req) => {
      noQuery(req);
      const res = await nwp.listDistricts({});
      return nwpEnvelope(req, deps.clock, { count: res.districts.length, districts: res.districts.map((d) => toPublicJson(DistrictSchema, d, "kebab")) }, res.ruleset);
    }),
    lookup("/api/v1/district/:code", "One Corps district", ref("NwpDistrict"), DistrictSchema, { code: { description: "Corps district code.", schema: { type: "string" } } }, async (req) => {
      noQuery(req);
      const res = await nwp.getDistrict({ code: (req.params as { code: string }).code });
      return nwpEnvelope(req, deps.clock, toPublicJson(DistrictSchema, res.district, "kebab"), res.ruleset);
    }, ["not_found"], { params: { code: "SPK" } }),
    lookup("/api/v1/state/:code/401", "Section 401 record of a state or territory", ref("NwpStateCertification"), StateCertificationSchema, { code: { description: "Two-letter state, territory or DC code.", schema: { type: "string" } } }, async (req) => {
      noQuery(req);
      const res = await nwp.getStateCertification({ code: (req.params as { code: string }).code });
      return nwpEnvelope(req, deps.clock, toPublicJson(StateCertificationSchema, res.certification, "kebab"), res.ruleset);
    }, ["not_found"], { params: { code: "CA" } }),
    lookup("/api/v1/activity", "Activity identifiers and the permits each is screened against", list("activities", "NwpActivity", "Each activity identifier with the nationwide permits it is screened against."), ActivitySchema, undefined, async (req) => {
      noQuery(req);
      const res = await nwp.listActivities({});
      return nwpEnvelope(req, deps.clock, { count: res.activities.length, activities: res.activities.map((a) => toPublicJson(ActivitySchema, a, "kebab")) }, res.ruleset);
    }),
  ];
}

function parseBatchBody(body: unknown): { projects: unknown[] } {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw invalidArgument("The request body must be a JSON object with a projects array.", [{ field: "projects", description: "projects must be an array of project objects.", reason: ViolationReason.MALFORMED }]);
  }
  const unknownKeys = Object.keys(body).filter((k) => k !== "projects");
  const projects = (body as { projects?: unknown }).projects;
  if (unknownKeys.length) throw invalidArgument(`Unknown field: ${unknownKeys.join(", ")}.`, [], { unknownKeys, knownKeys: ["projects"] });
  if (!Array.isArray(projects)) {
    throw invalidArgument("projects must be an array of project objects.", [{ field: "projects", description: "projects must be an array of project objects.", reason: projects === undefined ? ViolationReason.MISSING : ViolationReason.MALFORMED }]);
  }
  if (projects.length > MAX_BATCH) {
    throw new Problem("batch_too_large", `A batch holds at most ${MAX_BATCH} projects; this one has ${projects.length}.`, { fields: [{ field: "projects", message: `at most ${MAX_BATCH} items` }] });
  }
  return { projects };
}

/** The public JSON of a batch item the nwp service decided (`determinationOf`: from determinationsOf). */
export function decidedItem(it: BatchItem, determinationOf: (item: BatchItem) => Determination | undefined) {
  return { index: it.index, ok: true, input: toPublicJson(ProjectInputSchema, it.input, "kebab"), determination: toPublicJson(DeterminationSchema, determinationOf(it), "kebab") };
}

function failedItem(index: number, e: unknown) {
  const p = toProblem(e);
  return { index, ok: false, error: { code: p.code("nwp"), message: p.message, fields: p.extra.fields ?? [], knownValues: p.extra.knownValues ?? {} } };
}

function permitNumber(text: string): number {
  if (!/^\d{1,3}$/.test(text)) {
    throw invalidArgument(`NWP number must be a whole number, got "${text.slice(0, 20)}".`, [{ field: "number", description: "NWP number must be a whole number.", reason: ViolationReason.MALFORMED }]);
  }
  return Number(text);
}
