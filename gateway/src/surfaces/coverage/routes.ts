// GET /api/v1/coverage: what each dataset holds, per jurisdiction and per NWP, and on which basis,
// so a client can decide before it asks. The stormwater surface's vocabulary; unmetered like discovery.
import type { FastifyReply, FastifyRequest } from "fastify";
import { GetCoverageResponseSchema as StormwaterCoverage } from "@permits/proto/stormwater/v1/stormwater";
import { GetCoverageResponseSchema as NwpCoverage } from "@permits/proto/nwp/v1/nwp";
import type { AppDeps } from "../../deps.js";
import { parseFields } from "../../http/fields.js";
import { toPublicJson, type RawJson } from "../../http/public-json.js";
import type { RouteSpec } from "../../http/route-table.js";
import { stormwaterEnvelope } from "../stormwater/envelope.js";
import { stormwaterSchemas } from "../stormwater/openapi-schemas.js";

// The read-out changes only when a service restarts on new data; a short cache keeps an
// unmetered route from costing two calls per request.
const CACHE_MS = 60_000;

export function coverageRoutes(deps: AppDeps): RouteSpec[] {
  let cached: { at: number; data: { stormwater: RawJson; nwp: RawJson } } | undefined;
  const readOut = async () => {
    const now = deps.clock.now();
    if (cached && now - cached.at < CACHE_MS) return cached.data;
    const [sw, nwp] = await Promise.all([deps.clients.stormwater.getCoverage({}), deps.clients.nwp.getCoverage({})]);
    const data = { stormwater: toPublicJson(StormwaterCoverage, sw, "snake"), nwp: toPublicJson(NwpCoverage, nwp, "snake") };
    cached = { at: now, data };
    return data;
  };
  return [
    {
      method: "GET",
      url: "/api/v1/coverage",
      surface: "stormwater",
      doc: {
        summary: "What the data holds, and on which basis",
        description:
          "Both dataset versions, counts of facts per basis (official-text, agency-form, prior-edition, agency-page, secondary, unsourced) and confidence, facts not held, and per jurisdiction and per nationwide permit what is held and at which confidence. Unmetered; cached for up to 60 seconds.",
        success: { status: 200, description: "The coverage read-out.", schema: stormwaterSchemas.envelope("Coverage") },
        // The surface's Coverage component (meta/openapi.ts) holds the two read-outs under these names.
        messages: [{ message: StormwaterCoverage, name: "StormwaterCoverage" }, { message: NwpCoverage, name: "NwpCoverage" }],
        errors: ["invalid_request", "internal"],
        auth: "none",
      },
      handler: async (req: FastifyRequest, reply: FastifyReply) => {
        parseFields({}, req.query as Record<string, unknown>, "query");
        reply.header("cache-control", "public, max-age=60");
        return stormwaterEnvelope(req, await readOut());
      },
    },
  ];
}
