// The headers access control writes: the caller's rate windows (the X- fields and the IETF draft
// fields beside them), the quota of a billable key, and the NWP surface's X-Service-Tier.
import type { FastifyReply } from "fastify";
import { Tier, TierSchema } from "@permits/proto/entitlement/v1/entitlement";
import type { WindowStatus } from "@permits/proto/ratelimit/v1/ratelimit";
import { enumWord } from "../http/public-json.js";
import type { Surface } from "../http/problems.js";

/** A tier as callers read it (and as rate policies are named). */
export function tierWord(tier: Tier): string {
  return enumWord(TierSchema, tier, "snake") ?? "anonymous";
}

/** The NWP surface names the caller's tier on every metered answer; the stormwater surface does not. */
export function writeTierHeader(reply: FastifyReply, surface: Surface, tier: Tier): void {
  if (surface === "nwp") reply.header("x-service-tier", tierWord(tier));
}

export function writeLimitHeaders(reply: FastifyReply, windows: WindowStatus[], binding: number, billable: boolean, nowMs: number): void {
  const w = windows[binding];
  if (!w) return;
  reply.header("x-ratelimit-limit", String(w.limit));
  reply.header("x-ratelimit-remaining", String(w.remaining));
  reply.header("x-ratelimit-reset", String(w.resetAt));
  const nowS = Math.floor(nowMs / 1000);
  // IETF draft fields beside the X- ones: every policy, and the state of the binding one.
  reply.header("ratelimit-policy", windows.map((x) => `"${x.name}";q=${x.limit};w=${x.windowSeconds}`).join(", "));
  reply.header("ratelimit", `"${w.name}";r=${w.remaining};t=${Math.max(0, w.resetAt - nowS)}`);
  if (billable) {
    const q = windows.find((x) => x.quota);
    if (q) {
      reply.header("x-quota-limit", String(q.limit));
      reply.header("x-quota-used", String(q.used));
      reply.header("x-quota-remaining", String(q.remaining));
    }
  }
}
