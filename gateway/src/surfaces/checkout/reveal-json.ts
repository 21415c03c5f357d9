// The success page's answer as JSON (Accept: application/json): the outcome, and the keys once.
import type { FastifyRequest } from "fastify";
import { KeyKind, Plan, RevealOutcome, type RevealCheckoutResponse } from "@permits/proto/entitlement/v1/entitlement";
import { Surface } from "@permits/proto/common/v1/common";
import { REISSUE_TEXT } from "./pages.js";

const OUTCOMES: Record<number, string> = { [RevealOutcome.SHOWN]: "shown", [RevealOutcome.ALREADY_SHOWN]: "already_shown", [RevealOutcome.NOT_PAID]: "not_paid" };

export function revealJson(req: FastifyRequest, res: RevealCheckoutResponse) {
  return {
    data: {
      outcome: OUTCOMES[res.outcome] ?? "not_paid",
      plan: res.planId,
      subscription_id: res.subscriptionId || null,
      keys: res.keys.map((k) => ({
        surface: k.surface === Surface.NWP ? "nwp" : "stormwater",
        kind: k.kind === KeyKind.LIVE ? "live" : k.kind === KeyKind.TEST ? "test" : "legacy",
        plan: k.plan === Plan.SCALE ? "scale" : k.plan === Plan.PRO ? "pro" : null,
        key: k.secret,
        key_id: k.keyId ?? null,
      })),
      reissue: REISSUE_TEXT,
    },
    request_id: req.id,
  };
}
