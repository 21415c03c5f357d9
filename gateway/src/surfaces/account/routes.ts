// The caller's own account: usage read-out (document 1 rules) and legacy key recovery (document 2).
import { Code, ConnectError } from "@connectrpc/connect";
import { WindowStatusSchema } from "@permits/proto/ratelimit/v1/ratelimit";
import type { AppDeps } from "../../deps.js";
import { entitlementOutage, tierWord } from "../../access/index.js";
import { parseFields } from "../../http/fields.js";
import { Problem } from "../../http/problems.js";
import { toPublicJson } from "../../http/public-json.js";
import type { RouteSpec } from "../../http/route-table.js";
import { stormwaterEnvelope } from "../stormwater/envelope.js";
import { nwpEnvelope } from "../nwp/envelope.js";

const WINDOW_SCHEMA = {
  type: "object",
  required: ["name", "limit", "used", "remaining", "resetAt", "windowSeconds", "quota"],
  properties: {
    name: { type: "string", description: "minute, hour, day or month" },
    limit: { type: "integer", description: "Requests the window allows." },
    used: { type: "integer", description: "Requests counted in the window so far." },
    remaining: { type: "integer", description: "limit minus used, never below zero." },
    resetAt: { type: "integer", description: "Unix seconds" },
    windowSeconds: { type: "integer", description: "Length of the window in seconds." },
    quota: { type: "boolean", description: "A plan's monthly ceiling rather than an abuse limit." },
  },
};
const USAGE_SCHEMA = {
  type: "object",
  required: ["data", "request_id", "disclaimer"],
  properties: {
    data: {
      type: "object",
      required: ["tier", "billable", "policy", "windows", "quota"],
      properties: {
        tier: { type: "string", description: "The caller's tier as identified by its key (or the keyless tier)." },
        billable: { type: "boolean", description: "Whether answered requests of this key are billed (live keys)." },
        policy: { type: "string", description: "Id of the rate-limit policy applied (data/tiers.json)." },
        windows: { type: "array", items: WINDOW_SCHEMA, description: "Every window of the policy, with what is used and left." },
        quota: { oneOf: [WINDOW_SCHEMA, { type: "null" }], description: "The plan's monthly ceiling; null where the tier has none." },
      },
      description: "The caller's standing; reading it spends nothing.",
    },
    request_id: { type: "string", description: "Correlation id of this response, also in the X-Request-Id header." },
    disclaimer: { type: "string", description: "Fixed legal statement, present on every success." },
    attribution: { type: "string", description: "Present on anonymous, sandbox and test-key responses; absent on paid responses." },
  },
};

/** A document 2 key's usage, in document 2's envelope. */
const NWP_USAGE_SCHEMA = {
  type: "object",
  required: ["data", "meta"],
  properties: {
    data: {
      type: "object",
      required: ["tier", "policy", "windows"],
      properties: {
        tier: { type: "string", description: "pro or free (a lapsed Pro subscription)" },
        policy: { type: "string", description: "Id of the rate-limit policy applied (data/tiers.json)." },
        windows: { type: "array", items: WINDOW_SCHEMA, description: "Every window of the policy, with what is used and left." },
      },
      description: "The key's standing; reading it spends nothing.",
    },
    meta: { $ref: "#/components/schemas/NwpMeta", description: "Document 2's meta: the ruleset, when the answer was generated, the request id." },
  },
};

const RECOVER_FIELDS = { subscriptionId: { type: "string" as const, description: "The payment-provider subscription id from the receipt (sub_…)." } };

export function accountRoutes(deps: AppDeps): RouteSpec[] {
  const { entitlement, nwp } = deps.clients;
  return [
    {
      method: "GET",
      url: "/api/v1/usage",
      surface: "stormwater",
      access: { noSpend: true, legacyKeys: true },
      doc: {
        summary: "The caller's tier, windows and quota (spends nothing)",
        description:
          "Every window of the caller's document 1 tier with limit, used, remaining and reset (Unix seconds), and the monthly quota where the plan has one. " +
          "A document 2 (legacy live) key reads its subscription's windows instead, answered in document 2's envelope and error vocabulary with X-Service-Tier. Reading it consumes no budget.",
        success: { status: 200, description: "Usage: document 1's envelope, or document 2's for a legacy key.", schema: { type: "object", oneOf: [USAGE_SCHEMA, NWP_USAGE_SCHEMA] } },
        errors: ["unauthorized", "internal"],
        auth: "optional",
      },
      handler: async (req, reply) => {
        parseFields({}, req.query, "query");
        const principal = req.principal!;
        if (req.surface === "nwp") {
          // A document 2 subscriber's own windows, in document 2's vocabulary and envelope.
          const [usage, { ruleset }] = await Promise.all([reply.writeStanding(), nwp.listActivities({})]);
          const windows = usage.windows.map((w) => toPublicJson(WindowStatusSchema, w, "kebab"));
          return nwpEnvelope(req, deps.clock, { tier: tierWord(principal.tier), policy: usage.policy, windows }, ruleset);
        }
        const usage = await reply.writeStanding();
        const windows = usage.windows.map((w) => toPublicJson(WindowStatusSchema, w, "snake"));
        const quota = usage.windows.find((w) => w.quota);
        return stormwaterEnvelope(req, {
          tier: tierWord(principal.tier),
          billable: principal.billable,
          policy: usage.policy,
          windows,
          quota: quota ? toPublicJson(WindowStatusSchema, quota, "snake") : null,
        });
      },
    },
    {
      method: "POST",
      url: "/recover",
      surface: "nwp",
      access: { ipPolicy: "recover" },
      doc: {
        summary: "Reissue an NWP Pro key from its subscription id",
        description: "The live key is derived from the subscription, so it can be reissued with the subscription id from the receipt. Rate limited per calling IP. Answers only the key of that subscription.",
        body: { type: "object", additionalProperties: false, required: ["subscriptionId"], properties: { subscriptionId: { type: "string", description: RECOVER_FIELDS.subscriptionId.description } } },
        example: { body: { subscriptionId: "sub_example" } },
        success: { status: 200, description: "The key, with document 2's meta (ruleset, generatedAt, requestId).", schema: {
            type: "object",
            properties: {
              data: {
                type: "object",
                description: "The recovered key.",
                properties: { apiKey: { type: "string", description: "The subscription's document 2 key, reissued." }, subscriptionId: { type: "string", description: "The subscription the key belongs to." } },
              },
              meta: { $ref: "#/components/schemas/NwpMeta", description: "Document 2's meta: the ruleset, when the answer was generated, the request id." },
            },
          },
        },
        errors: ["invalid_request", "malformed_json", "not_found", "rate_limit_exceeded", "entitlement_check_unavailable", "internal_error"],
        auth: "none",
      },
      handler: async (req) => {
        const { subscriptionId } = parseFields(RECOVER_FIELDS, req.body, "json") as { subscriptionId?: string };
        if (!subscriptionId) throw new Problem("invalid_request", "subscriptionId is required.", { fields: [{ field: "subscriptionId", message: "required" }] });
        try {
          // Every document 2 success names its ruleset (meta.ruleset); the nwp service holds it.
          const [res, { ruleset }] = await Promise.all([entitlement.recoverLegacyKey({ subscriptionId }), nwp.listActivities({})]);
          return nwpEnvelope(req, deps.clock, { apiKey: res.apiKey, subscriptionId }, ruleset);
        } catch (e) {
          if (e instanceof ConnectError && e.code === Code.NotFound) throw new Problem("not_found", "No subscription with this id is known to the payment provider.");
          throw entitlementOutage(e) ?? e;
        }
      },
    },
  ];
}

