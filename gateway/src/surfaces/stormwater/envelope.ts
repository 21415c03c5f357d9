import type { FastifyRequest } from "fastify";

export const DISCLAIMER =
  "Informational determination computed from published permit texts as cited. It is not legal or engineering advice, " +
  "does not perform a wetland delineation or site inspection, and does not issue or guarantee a permit. " +
  "Confirm every answer with the permitting authority named; values marked unverified must be treated as unverified.";

export const ATTRIBUTION = "Stormwater permit determination by the Permit Determination API (free tier); attribution required when displayed.";

/** The stormwater surface's success envelope; attribution only for callers who do not pay. */
export function stormwaterEnvelope(req: FastifyRequest, data: unknown) {
  const paid = req.principal?.billable === true;
  return paid
    ? { data, request_id: req.id, disclaimer: DISCLAIMER }
    : { data, request_id: req.id, disclaimer: DISCLAIMER, attribution: ATTRIBUTION };
}
