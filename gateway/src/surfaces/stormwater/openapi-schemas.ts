import type { RouteDoc } from "../../http/route-table.js";
import { fieldSpecSchema, fieldTableSchema } from "../../http/json-schema.js";
import { SITE_FIELDS } from "./site-input.js";

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

export const stormwaterSchemas = {
  /** The stormwater surface's success envelope around a component. */
  envelope: (name: string) => ({
    type: "object",
    required: ["data", "request_id", "disclaimer"],
    properties: {
      data: { ...ref(name), description: "The answer." },
      request_id: { type: "string", description: "Correlation id of this response, also in the X-Request-Id header." },
      disclaimer: { type: "string", description: "Fixed legal statement, present on every success." },
      attribution: { type: "string", description: "Present on anonymous, sandbox and test-key responses; absent on paid responses." },
    },
  }),
  siteInput: {
    ...fieldTableSchema(SITE_FIELDS, ["state", "activity"]),
    // disturbedAcres is required unless its alias acres is given (document 1).
    anyOf: [{ required: ["acres"] }, { required: ["disturbedAcres"] }],
    description: "One of acres or disturbedAcres is required.",
  },
  siteQuery: Object.fromEntries(
    Object.entries(SITE_FIELDS).map(([k, v]) => [k, { description: v.description, required: k === "state" || k === "activity", schema: fieldSpecSchema(v) }]),
  ) as NonNullable<RouteDoc["query"]>,
};
