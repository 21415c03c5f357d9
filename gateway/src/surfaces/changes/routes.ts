// GET /api/v1/changes?since=<datasetVersion>: every fact added, changed or removed after a
// dataset version, grouped by jurisdiction, permit or NWP, so an integrator knows which stored
// answers to recompute. A version names its dataset (stormwater answers carry the stormwater
// one; the coverage read-out names both), so both services are asked and the one that knows it
// answers; each holds every answer ready from its start. The stormwater surface's vocabulary; unmetered.
import { Code, ConnectError } from "@connectrpc/connect";
import type { FastifyReply, FastifyRequest } from "fastify";
import { FactChangesSchema } from "@permits/proto/common/v1/common";
import { badRequestOf, invalidArgument, ViolationReason } from "@permits/rules";
import type { AppDeps } from "../../deps.js";
import { parseFields, type FieldTable } from "../../http/fields.js";
import { toPublicJson } from "../../http/public-json.js";
import type { RouteSpec } from "../../http/route-table.js";
import { stormwaterEnvelope } from "../stormwater/envelope.js";
import { stormwaterSchemas } from "../stormwater/openapi-schemas.js";

export const CHANGES_QUERY: FieldTable = {
  since: {
    type: "string",
    description:
      "A dataset version: the datasetVersion a stored stormwater answer carries, or either dataset's datasetVersion from GET /api/v1/coverage. The answer lists every change after it; the current version gives an empty list.",
  },
};

/** The versions a service knows, from its refusal of an unknown one; undefined for any other failure. */
function knownVersions(r: PromiseSettledResult<unknown>): string[] | undefined {
  if (r.status === "fulfilled" || !(r.reason instanceof ConnectError) || r.reason.code !== Code.InvalidArgument) return undefined;
  return badRequestOf(r.reason)?.violations.find((v) => v.field === "since")?.knownValues;
}

export function changesRoutes(deps: AppDeps): RouteSpec[] {
  const { stormwater, nwp } = deps.clients;
  return [
    {
      method: "GET",
      url: "/api/v1/changes",
      surface: "stormwater",
      doc: {
        summary: "What changed in the data after a given data version",
        description:
          "Every fact added, changed or removed after the dataset version `since`, with its value, basis, confidence, source and checkedOn date before and after, grouped by jurisdiction, permit or area (stormwater) or by nationwide permit and ruleset (nwp). Derived from the released versions of the data, not written by hand. A stored answer about a jurisdiction or permit in a group should be recomputed. An unknown version is invalid_request with every known version in details.known_values. Unmetered.",
        query: { since: { description: CHANGES_QUERY.since.description, required: true, schema: { type: "string" } } },
        example: { query: { since: "2026-11-21.6f9a490f97" } },
        success: { status: 200, description: "The changes after that version.", schema: stormwaterSchemas.envelope("FactChanges") },
        messages: [{ message: FactChangesSchema, name: "FactChanges" }],
        errors: ["invalid_request", "internal"],
        auth: "none",
      },
      handler: async (req: FastifyRequest, reply: FastifyReply) => {
        const { since } = parseFields(CHANGES_QUERY, req.query as Record<string, unknown>, "query") as { since?: string };
        const asked = await Promise.allSettled([stormwater.getChanges({ since: since ?? "" }), nwp.getChanges({ since: since ?? "" })]);
        const answered = asked.find((r) => r.status === "fulfilled");
        if (answered) {
          reply.header("cache-control", "public, max-age=60");
          return stormwaterEnvelope(req, toPublicJson(FactChangesSchema, answered.value.changes, "snake"));
        }
        const known = asked.map(knownVersions);
        // A service that failed otherwise (unavailable) may hold the version: its failure is the answer.
        const failed = asked.find((r, i) => known[i] === undefined);
        if (failed) throw (failed as PromiseRejectedResult).reason;
        const knownValues = known.flatMap((k) => k ?? []);
        const message = since === undefined ? "since is required: a dataset version." : `since: ${JSON.stringify(since.slice(0, 80))} is not a known dataset version.`;
        throw invalidArgument(`${message} Known versions: ${knownValues.join(", ")}.`, [
          { field: "since", description: message, reason: since === undefined ? ViolationReason.MISSING : ViolationReason.UNKNOWN_VALUE, knownValues },
        ]);
      },
    },
  ];
}
