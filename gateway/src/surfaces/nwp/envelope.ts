import type { FastifyRequest } from "fastify";
import { RulesetSchema, type Ruleset } from "@permits/proto/nwp/v1/nwp";
import { toPublicJson } from "../../http/public-json.js";
import type { Clock } from "@permits/runtime";

/** The NWP surface's success envelope: `{ data, meta }`, meta naming the ruleset and the request. */
export function nwpEnvelope(req: FastifyRequest, clock: Clock, data: unknown, ruleset: Ruleset | undefined, meta: Record<string, unknown> = {}) {
  return {
    data,
    meta: {
      ...meta,
      ruleset: toPublicJson(RulesetSchema, ruleset, "kebab"),
      generatedAt: new Date(clock.now()).toISOString(),
      requestId: req.id,
    },
  };
}
