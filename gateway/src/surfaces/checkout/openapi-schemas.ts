// Checkout's operations as the OpenAPI document describes them: the form bodies, the 303-or-JSON
// answers and the success page's JSON (the keys, shown once).
import type { RouteSpec } from "../../http/route-table.js";

/** Checkout's operations in the OpenAPI document: answers that need a paid session or a Stripe signature, so no generated example. */
const CHECKOUT_TAG = "Checkout";

/** A checkout route: unmetered, in the stormwater surface's error vocabulary, under the Checkout tag. */
export const checkoutRoute = (method: RouteSpec["method"], url: string, doc: RouteSpec["doc"], handler: RouteSpec["handler"]): RouteSpec => ({
  method,
  url,
  surface: "stormwater",
  doc: { ...doc, tag: CHECKOUT_TAG },
  handler,
});

const KEY_SCHEMA = {
  type: "object",
  required: ["surface", "kind", "key"],
  properties: {
    surface: { type: "string", enum: ["stormwater", "nwp"], description: "Which endpoints the key is for: stormwater, or nwp (nationwide permits)." },
    kind: { type: "string", enum: ["live", "test", "legacy"], description: "live (stormwater, the plan's), test (stormwater, free) or legacy (the NWP Pro key)." },
    plan: { type: ["string", "null"], description: "pro or scale; null for a test key." },
    key: { type: "string", description: "The key itself: shown in this answer only." },
    key_id: { type: ["string", "null"], description: "The stored key's id (stormwater keys); null for the NWP Pro key, which is made from the subscription." },
  },
};

export const REVEAL_SCHEMA = {
  type: "object",
  required: ["data", "request_id"],
  properties: {
    data: {
      type: "object",
      description: "The outcome, and the keys the first time.",
      required: ["outcome", "plan", "keys"],
      properties: {
        outcome: { type: "string", enum: ["shown", "already_shown", "not_paid"], description: "shown: the keys are in this answer, the only time; already_shown: they were shown before; not_paid: the payment is not confirmed yet, retry." },
        plan: { type: "string", description: "stormwater_pro, stormwater_scale or nwp_pro" },
        subscription_id: { type: ["string", "null"], description: "The receipt's subscription id; only with the keys." },
        keys: { type: "array", items: KEY_SCHEMA, description: "Empty unless outcome is shown." },
        reissue: { type: "string", description: "Where lost keys are reissued." },
      },
    },
    request_id: { type: "string", description: "Correlation id of this response, also in the X-Request-Id header." },
  },
};

/** An HTML page's success entry. */
export const htmlPage = (summary: string): RouteSpec["doc"]["success"] => ({ status: 200, description: summary, schema: { type: "object" } });

/** The JSON answer of a route that otherwise answers 303 to `fields`' first entry. */
export const jsonGoTo = (description: string, fields: Record<string, string>): RouteSpec["doc"]["success"] => ({
  status: 200,
  description: `${description} (with Accept: application/json; a browser's form post gets 303 there).`,
  schema: {
    type: "object",
    required: ["data", "request_id"],
    properties: {
      data: { type: "object", required: Object.keys(fields), properties: Object.fromEntries(Object.entries(fields).map(([k, d]) => [k, { type: "string", description: d }])), description: "Where to go next." },
      request_id: { type: "string", description: "Correlation id of this response, also in the X-Request-Id header." },
    },
  },
});

/** A form post (urlencoded) or JSON body with one required string field. */
export const formBody = (field: string, description: string) => ({
  type: "object",
  required: [field],
  properties: { [field]: { type: "string", description } },
  description: `A form post (application/x-www-form-urlencoded) or JSON with ${field}.`,
});
