// Who is calling and whether they may: the entitlement service names the principal, then the
// ratelimit service makes one atomic decision over every window of the principal's tier.
// Runs in onRequest, before the body is read, so a refused call costs almost nothing.
import fp from "fastify-plugin";
import type { FastifyReply, FastifyRequest } from "fastify";
import { Code, ConnectError } from "@connectrpc/connect";
import { Surface as SurfaceEnum } from "@permits/proto/common/v1/common";
import { create } from "@bufbuild/protobuf";
import { PrincipalSchema, Tier, TierSchema, type Principal } from "@permits/proto/entitlement/v1/entitlement";
import type { DecideResponse, GetUsageResponse, WindowStatus } from "@permits/proto/ratelimit/v1/ratelimit";
import type { AppDeps } from "../deps.js";
import { enumWord } from "./public-json.js";
import { Problem, toProblem, type Surface } from "./problems.js";
import { parseLegacyKey } from "@permits/entitlement/keys";
import { KeylessCallers, MISSING } from "@permits/entitlement/keyless";

/** An admitted decision that counted plan-ceiling units, held until the answer is known. */
interface QuotaCharge {
  policy: string;
  bucket: string;
  cost: number;
  decidedAt: number;
}

declare module "fastify" {
  interface FastifyRequest {
    principal: Principal | null;
    quotaCharge: QuotaCharge | null;
    /** The surface answering this request: the route's, unless the route takes both key schemes. */
    surface: Surface | null;
  }
  interface FastifyContextConfig {
    /** Only these tiers may call the route (document 2's batch: Pro only). */
    tiers?: Tier[];
    /** The route meters itself later (an idempotent replay must not be charged). */
    deferMetering?: boolean;
    /** Keyless route metered per calling IP under this policy (key recovery). */
    ipPolicy?: string;
    /** Identify the caller but spend nothing (the usage read-out). */
    noSpend?: boolean;
    /** A document 2 (legacy) key is served as document 2: its tier, its vocabulary. */
    legacyKeys?: boolean;
  }
}

const SURFACES: Record<Surface, SurfaceEnum> = { stormwater: SurfaceEnum.STORMWATER, nwp: SurfaceEnum.NWP };

export function tierWord(tier: Tier): string {
  return enumWord(TierSchema, tier, "snake") ?? "anonymous";
}

const ACCEPTED_FORMS = "send Authorization: Bearer <key> or X-API-Key: <key>";

/**
 * `Authorization: Bearer <key>` or `x-api-key` (header names are case-insensitive in Node).
 * A header that is present but not one of these forms (another scheme, `Bearer` with nothing
 * after it, an empty X-API-Key) is refused: a caller who mistyped it must not silently become
 * anonymous.
 */
export function apiKeyOf(req: FastifyRequest): string | undefined {
  const auth = req.headers.authorization;
  if (auth !== undefined) {
    // ASCII whitespace only: a key with a trailing no-break space (0xA0) is not the key.
    const m = typeof auth === "string" ? /^Bearer[ \t]+([^ \t]+)[ \t]*$/i.exec(auth) : null;
    if (!m) throw new Problem("invalid_api_key", `The Authorization header is not a key in an accepted form: ${ACCEPTED_FORMS}.`);
    return m[1];
  }
  const key = req.headers["x-api-key"];
  if (key !== undefined) {
    const trimmed = typeof key === "string" ? trimAscii(key) : "";
    if (trimmed === "") throw new Problem("invalid_api_key", `The X-API-Key header is empty: ${ACCEPTED_FORMS}.`);
    return trimmed;
  }
  return undefined;
}

/** Trims spaces and tabs (what HTTP calls whitespace), never other characters such as U+00A0. */
function trimAscii(s: string): string {
  return s.replace(/^[ \t]+|[ \t]+$/g, "");
}

export const accessControl = fp<AppDeps>(async (app, deps) => {
  const { entitlement, ratelimit } = deps.clients;
  // No key and the sandbox key need no key check: decided here, without the entitlement service.
  const keyless = new KeylessCallers(deps.config.SANDBOX_KEY);
  app.decorateRequest("principal", null);
  app.decorateRequest("quotaCharge", null);
  app.decorateRequest("surface", null);

  // Plans bill answers: a monthly ceiling counts an admitted request only when it was answered
  // (2xx to GET or POST). Anything else gives its quota units back before the headers go out,
  // so they show where the caller really stands. The throttle windows keep every request.
  app.addHook("onSend", (req, reply, _payload, done) => {
    const charge = req.quotaCharge;
    if (!charge || isAnswer(req, reply)) return done();
    req.quotaCharge = null;
    ratelimit.refund(charge).then(
      (after) => writeLimitHeaders(reply, after.windows, after.bindingWindow, req.principal?.billable ?? false, deps.clock.now()),
      (err: unknown) => req.log.error({ err, policy: charge.policy }, "quota refund failed: an unanswered request stays counted"),
    ).finally(() => done());
  });

  app.addHook("onRequest", async (req, reply) => {
    const cfg = req.routeOptions.config;
    if (!cfg?.metered || !cfg.surface) return;
    let surface = cfg.surface;
    req.surface = surface;
    if (cfg.ipPolicy) {
      req.principal = create(PrincipalSchema, { surface: SURFACES[surface], tier: Tier.ANONYMOUS, bucket: `ip:${req.ip}` });
      await meter(deps, req, reply, 1, cfg.ipPolicy);
      return;
    }
    try {
      const apiKey = apiKeyOf(req);
      if (cfg.legacyKeys && apiKey !== undefined && parseLegacyKey(apiKey)) surface = req.surface = "nwp";
      req.principal = await identify(apiKey, req.ip, surface);
    } catch (e) {
      throw await withStanding(deps, req, reply, e);
    }
    const principal = req.principal;
    if (surface === "nwp") reply.header("x-service-tier", tierWord(principal.tier));
    if (cfg.tiers && !cfg.tiers.includes(principal.tier)) {
      const refusal = new Problem("upgrade_required", `This endpoint needs a Pro key; this key is on the ${tierWord(principal.tier)} tier. See /api/v1/pricing.`);
      throw await withStanding(deps, req, reply, refusal);
    }
    if (cfg.noSpend) return;
    // A keyed caller's idempotent replay is not charged: the route meters once it knows.
    if (cfg.deferMetering && principal.keyId !== undefined && req.headers["idempotency-key"] !== undefined) return;
    await meter(deps, req, reply);
  });

  async function identify(apiKey: string | undefined, clientIp: string, surface: Surface): Promise<Principal> {
    const local = keyless.identify(SURFACES[surface] as SurfaceEnum.STORMWATER | SurfaceEnum.NWP, apiKey, clientIp);
    if (local === MISSING) throw missingKey();
    if (local) return local;
    let principal: Principal | undefined;
    try {
      principal = (await entitlement.authenticate({ surface: SURFACES[surface], apiKey, clientIp })).principal;
    } catch (e) {
      throw authProblem(e, apiKey !== undefined);
    }
    if (!principal) throw new Problem("internal", "The caller could not be identified.");
    return principal;
  }
});

/** Where no key was accepted, the caller is its IP on the surface's keyless tier. */
const KEYLESS_TIER: Record<Surface, Tier> = { stormwater: Tier.ANONYMOUS, nwp: Tier.SANDBOX };

/**
 * Puts the caller's current standing (spending nothing) on a refusal that comes before metering,
 * so every metered response carries its rate headers: the identified caller's windows, or the
 * calling IP's where no key was accepted. Returns `err` for the caller to throw; a failure to
 * read the standing never replaces the refusal.
 */
export async function withStanding(deps: AppDeps, req: FastifyRequest, reply: FastifyReply, err: unknown): Promise<unknown> {
  const surface = req.surface;
  // An outage (the key store or the provider) identifies no one, and its 503 must not wait on a
  // second dependency.
  if (!surface || (err instanceof Problem && (err.extra.status ?? 0) >= 500)) return err;
  if (!req.principal) {
    req.principal = create(PrincipalSchema, { surface: SURFACES[surface], tier: KEYLESS_TIER[surface], bucket: `ip:${req.ip}` });
    if (surface === "nwp") reply.header("x-service-tier", tierWord(req.principal.tier));
  }
  try {
    await writeStanding(deps, req, reply);
  } catch (e) {
    req.log.warn({ err: e }, "the caller's rate standing could not be read for a refusal");
  }
  return err;
}

function missingKey(): Problem {
  return new Problem("missing_api_key", "This endpoint needs an API key: send Authorization: Bearer <key> or X-API-Key.");
}

function authProblem(e: unknown, keySent: boolean): Problem {
  if (e instanceof ConnectError && e.code === Code.Unauthenticated) {
    return keySent
      ? new Problem("invalid_api_key", "The API key is not valid, or has been revoked.")
      : missingKey();
  }
  return entitlementOutage(e) ?? toProblem(e);
}

/**
 * The entitlement service's Unavailable as the caller's retryable 503, or undefined for other
 * errors. The service words these for callers (the payment provider, or the key store), and they
 * are never a verdict on the key or the subscription.
 */
export function entitlementOutage(e: unknown): Problem | undefined {
  if (!(e instanceof ConnectError) || e.code !== Code.Unavailable) return undefined;
  const retry = e.metadata.get("retry-after");
  // Without Retry-After it is the transport's error (the service did not answer): its text is not for callers.
  const message = retry === null ? "The key check service could not be reached. This is temporary and says nothing about the key; retry in 5 seconds." : e.rawMessage;
  return new Problem("entitlement_check_unavailable", message, { status: 503, headers: { "retry-after": retry ?? "5" } });
}

/**
 * A ratelimit call under the gateway's own policy name. The service refusing that name is a fault
 * of the server's configuration (a tier with no rate policy), never the caller's: it is logged
 * with the details and answered as a generic 500 in the route's vocabulary.
 */
export function underPolicy<T>(req: FastifyRequest, policy: string, call: Promise<T>): Promise<T> {
  return call.catch((e: unknown) => {
    if (!(e instanceof ConnectError) || e.code !== Code.InvalidArgument) throw e;
    req.log.error({ err: e, policy }, "configuration fault: the rate-limit policy of this tier is not in the tier table");
    throw new Problem("internal", "The server could not apply its rate limits because of a fault in its own configuration. This is not a problem with the request; quote the request id.", { status: 500 });
  });
}

/** The rate policy of the caller's tier on the route's surface. */
export function policyOf(req: FastifyRequest): string {
  return `${req.surface ?? req.routeOptions.config.surface}.${tierWord(req.principal!.tier)}`;
}

/** Spends one unit (or `cost`) of the caller's budget, sets the headers, refuses with 429. */
export async function meter(deps: AppDeps, req: FastifyRequest, reply: FastifyReply, cost = 1, policy = policyOf(req)): Promise<DecideResponse> {
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
      details: { retry_after_seconds: retry, limit: w.limit, window_seconds: w.windowSeconds, upgrade_url: "/api/v1/pricing" },
    });
  }
  return decision;
}

function isAnswer(req: FastifyRequest, reply: FastifyReply): boolean {
  return reply.statusCode >= 200 && reply.statusCode < 300 && (req.method === "GET" || req.method === "POST");
}

/** The caller's current windows, spending nothing, written as headers (usage read-out, replays). */
export async function writeStanding(deps: AppDeps, req: FastifyRequest, reply: FastifyReply): Promise<GetUsageResponse> {
  const principal = req.principal!;
  const policy = policyOf(req);
  const usage = await underPolicy(req, policy, deps.clients.ratelimit.getUsage({ policy, bucket: principal.bucket }));
  writeLimitHeaders(reply, usage.windows, usage.bindingWindow, principal.billable, deps.clock.now());
  return usage;
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
