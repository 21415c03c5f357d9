// Spending the caller's budget: one atomic decision of the ratelimit service over every window of
// the caller's tier, the standing read without spending, and the quota given back for a request
// that was not answered.
import type { FastifyReply, FastifyRequest, onSendHookHandler } from "fastify";
import { Code, ConnectError } from "@connectrpc/connect";
import type { DecideResponse, GetUsageResponse } from "@permits/proto/ratelimit/v1/ratelimit";
import type { AppDeps } from "../deps.js";
import { Problem } from "../http/problems.js";
import { tierWord, writeLimitHeaders, writeTierHeader } from "./headers.js";
import { keylessPrincipal } from "./identify.js";

/** An admitted decision that counted plan-ceiling units, held until the answer is known. */
export interface QuotaCharge {
  policy: string;
  bucket: string;
  cost: number;
  decidedAt: number;
}

/** What metering needs of the app's parts. */
export type MeterDeps = Pick<AppDeps, "clients" | "clock" | "instruments">;

/**
 * A ratelimit call under the gateway's own policy name. The service refusing that name is a fault
 * of the server's configuration (a tier with no rate policy), never the caller's: it is logged
 * with the details and answered as a generic 500 in the route's vocabulary.
 */
function underPolicy<T>(req: FastifyRequest, policy: string, call: Promise<T>): Promise<T> {
  return call.catch((e: unknown) => {
    if (!(e instanceof ConnectError) || e.code !== Code.InvalidArgument) throw e;
    req.log.error({ err: e, policy }, "configuration fault: the rate-limit policy of this tier is not in the tier table");
    throw new Problem("internal", "The server could not apply its rate limits because of a fault in its own configuration. This is not a problem with the request; quote the request id.", { status: 500 });
  });
}

/** The rate policy of the caller's tier on the surface answering the request. */
function policyOf(req: FastifyRequest): string {
  return `${req.surface ?? req.routeOptions.config.surface}.${tierWord(req.principal!.tier)}`;
}

/** Where a refused caller is sent to buy a plan: the page with the Buy buttons (the data is at /api/v1/pricing, in the index). */
export const PRICING_PAGE = "/pricing";

/** Spends one unit (or `cost`) of the caller's budget, sets the headers, refuses with 429. */
export async function meter(deps: MeterDeps, req: FastifyRequest, reply: FastifyReply, cost = 1, policy = policyOf(req)): Promise<DecideResponse> {
  const principal = req.principal!;
  const decision = await underPolicy(req, policy, deps.clients.ratelimit.decide({ policy, bucket: principal.bucket, cost }));
  writeLimitHeaders(reply, decision.windows, decision.bindingWindow, principal.billable, deps.clock.now());
  deps.instruments?.rateDecided(policy, decision.allowed, decision.windows[decision.bindingWindow]?.name ?? "none");
  if (decision.allowed && decision.windows.some((w) => w.quota)) {
    req.quotaCharge = { policy, bucket: principal.bucket, cost, decidedAt: decision.decidedAt };
  }
  if (!decision.allowed) {
    const w = decision.windows[decision.bindingWindow];
    const retry = Math.max(1, decision.retryAfterSeconds);
    reply.header("retry-after", String(retry));
    throw new Problem("rate_limited", `Rate limit reached: ${w.limit} requests per ${w.name}${w.quota ? " (the plan's monthly ceiling; no overage is billed)" : ""}. Retry after ${retry} seconds.`, {
      details: { retry_after_seconds: retry, limit: w.limit, window_seconds: w.windowSeconds, upgrade_url: PRICING_PAGE },
    });
  }
  return decision;
}

/** The caller's current windows, spending nothing, written as headers (usage read-out, replays). */
export async function writeStanding(deps: MeterDeps, req: FastifyRequest, reply: FastifyReply): Promise<GetUsageResponse> {
  const principal = req.principal!;
  const policy = policyOf(req);
  const usage = await underPolicy(req, policy, deps.clients.ratelimit.getUsage({ policy, bucket: principal.bucket }));
  writeLimitHeaders(reply, usage.windows, usage.bindingWindow, principal.billable, deps.clock.now());
  return usage;
}

/**
 * Puts the caller's current standing (spending nothing) on a refusal that comes before metering,
 * so every metered response carries its rate headers: the identified caller's windows, or the
 * calling address's where no key was accepted. Returns `err` for the caller to throw; a failure to
 * read the standing never replaces the refusal.
 */
export async function withStanding(deps: MeterDeps, req: FastifyRequest, reply: FastifyReply, err: unknown): Promise<unknown> {
  const surface = req.surface;
  // An outage (the key store or the provider) identifies no one, and its 503 must not wait on a
  // second dependency.
  if (!surface || (err instanceof Problem && (err.extra.status ?? 0) >= 500)) return err;
  if (!req.principal) {
    req.principal = keylessPrincipal(req, surface);
    writeTierHeader(reply, surface, req.principal.tier);
  }
  try {
    await writeStanding(deps, req, reply);
  } catch (e) {
    req.log.warn({ err: e }, "the caller's rate standing could not be read for a refusal");
  }
  return err;
}

/**
 * Plans bill answers: a monthly ceiling counts an admitted request only when it was answered
 * (2xx to GET or POST). Anything else gives its quota units back before the headers go out, so
 * they show where the caller really stands. The throttle windows keep every request.
 */
export function refundUnanswered(deps: MeterDeps): onSendHookHandler {
  return function refundUnanswered(req, reply, _payload, done) {
    const charge = req.quotaCharge;
    if (!charge || isAnswer(req, reply)) return done();
    req.quotaCharge = null;
    deps.clients.ratelimit.refund(charge).then(
      (after) => writeLimitHeaders(reply, after.windows, after.bindingWindow, req.principal?.billable ?? false, deps.clock.now()),
      (err: unknown) => req.log.error({ err, policy: charge.policy }, "quota refund failed: an unanswered request stays counted"),
    ).finally(() => done());
  };
}

function isAnswer(req: FastifyRequest, reply: FastifyReply): boolean {
  return reply.statusCode >= 200 && reply.statusCode < 300 && (req.method === "GET" || req.method === "POST");
}
