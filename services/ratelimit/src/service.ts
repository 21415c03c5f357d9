// RateLimitService handlers: validate, read the clock once, plan the policy's windows at that
// instant, and let the store make the one atomic decision.
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import { systemClock, type Clock } from "@permits/runtime";
import { invalidArgument, ViolationReason } from "@permits/rules";
import { IdempotencyState, type RateLimitService, type StoredResponse } from "@permits/proto/ratelimit/v1/ratelimit";
import type { Policy, PolicyTable } from "./policies.js";
import { silentLogger, type Logger, type RateLimitStore, type StoredResponseData } from "./store.js";
import { MINUTE_MS, bindingWindow, planWindows, retryAfterSeconds, toStatus } from "./windows.js";

export { createRateLimitStore } from "./create-store.js";

export interface RateLimitServiceDeps {
  store: RateLimitStore;
  policies: PolicyTable;
  clock?: Clock;
  logger?: Logger;
}

/** Longest accepted bucket, scope, key or fingerprint; the gateway refuses longer Idempotency-Keys itself. */
const MAX_ID = 512;
/** A decision's cost is a few units (a batch is one); this bounds the sliding log's writes. */
const MAX_COST = 10_000;
/** A refund follows its request's answer; an hour is far past any request's deadline. */
const REFUND_HORIZON_MS = 3_600_000;

export function createRateLimitService(deps: RateLimitServiceDeps): ServiceImpl<typeof RateLimitService> {
  const { store, policies } = deps;
  const clock = deps.clock ?? systemClock;
  const logger = deps.logger ?? silentLogger;

  function policyOf(id: string): Policy {
    const policy = policies.get(id);
    if (policy) return policy;
    throw invalidArgument(`unknown rate-limit policy "${id}"`, [
      { field: "policy", description: "not a policy of the tier table", reason: id ? ViolationReason.UNKNOWN_VALUE : ViolationReason.MISSING, knownValues: [...policies.keys()] },
    ]);
  }

  /** A store failure (only possible without the fallback) becomes Unavailable, logged with its cause. */
  async function guard<T>(op: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      logger.error({ op, err: err instanceof Error ? err.message : String(err) }, "ratelimit: store failed");
      throw new ConnectError("rate-limit store unavailable", Code.Unavailable);
    }
  }

  return {
    async decide(req) {
      const policy = policyOf(req.policy);
      requireId("bucket", req.bucket);
      const cost = checkedCost(req.cost);
      const now = clock.now();
      const plans = planWindows(policy, now);
      const outcome = await guard("decide", () => store.decide(subjectOf(policy, req.bucket), plans, cost, now));
      const windows = plans.map((p, i) => toStatus(p, outcome.windows[i]));
      return {
        allowed: outcome.allowed,
        windows,
        bindingWindow: bindingWindow(outcome.windows, plans, outcome.allowed),
        retryAfterSeconds: outcome.allowed ? 0 : retryAfterSeconds(outcome.windows, now),
        degraded: outcome.degraded,
        decidedAt: Math.floor(now / 1000),
      };
    },

    async refund(req) {
      const policy = policyOf(req.policy);
      requireId("bucket", req.bucket);
      const cost = checkedCost(req.cost);
      const now = clock.now();
      // The calendar windows the decision counted in, even when a new one has started since.
      const decidedAt = req.decidedAt * 1000;
      if (decidedAt > now + MINUTE_MS || decidedAt < now - REFUND_HORIZON_MS) {
        throw invalidArgument("decided_at is not a recent decision", [
          { field: "decided_at", description: "the decided_at of a decision of the last hour", reason: ViolationReason.MALFORMED },
        ]);
      }
      const counted = planWindows(policy, decidedAt).filter((p) => p.quota);
      await guard("refund", () => store.refund(subjectOf(policy, req.bucket), counted, cost, now));
      const plans = planWindows(policy, now);
      const outcome = await guard("refund", () => store.peek(subjectOf(policy, req.bucket), plans, now));
      return { windows: plans.map((p, i) => toStatus(p, outcome.windows[i])), bindingWindow: bindingWindow(outcome.windows, plans, true) };
    },

    async getUsage(req) {
      const policy = policyOf(req.policy);
      requireId("bucket", req.bucket);
      const now = clock.now();
      const plans = planWindows(policy, now);
      const outcome = await guard("getUsage", () => store.peek(subjectOf(policy, req.bucket), plans, now));
      return {
        policy: policy.id,
        windows: plans.map((p, i) => toStatus(p, outcome.windows[i])),
        bindingWindow: bindingWindow(outcome.windows, plans, true),
      };
    },

    async beginIdempotent(req) {
      requireId("scope", req.scope);
      requireId("key", req.key);
      requireId("fingerprint", req.fingerprint);
      const outcome = await guard("beginIdempotent", () => store.beginIdempotent(req.scope, req.key, req.fingerprint, clock.now()));
      switch (outcome.state) {
        case "claimed":
          return { state: IdempotencyState.CLAIMED };
        case "replay":
          return { state: IdempotencyState.REPLAY, stored: outcome.response };
        case "in_flight":
          return { state: IdempotencyState.IN_FLIGHT };
        case "mismatch":
          return { state: IdempotencyState.MISMATCH };
      }
    },

    async completeIdempotent(req) {
      requireId("scope", req.scope);
      requireId("key", req.key);
      requireId("fingerprint", req.fingerprint);
      if (!req.response) {
        throw invalidArgument("response is required", [{ field: "response", description: "the response to store", reason: ViolationReason.MISSING }]);
      }
      const response = fromProto(req.response);
      await guard("completeIdempotent", () => store.completeIdempotent(req.scope, req.key, req.fingerprint, response, clock.now()));
      return {};
    },

    async releaseIdempotent(req) {
      requireId("scope", req.scope);
      requireId("key", req.key);
      await guard("releaseIdempotent", () => store.releaseIdempotent(req.scope, req.key, clock.now()));
      return {};
    },
  };
}

/**
 * Counters belong to a policy and a bucket: the stormwater and NWP surfaces (and anonymous vs sandbox
 * on one IP) never share counts. A plan change starts fresh counters under the new policy.
 */
function subjectOf(policy: Policy, bucket: string): string {
  return `${policy.id}:${bucket}`;
}

function checkedCost(requested: number): number {
  // Proto3 cannot tell 0 from unset, so 0 means the usual single unit.
  const cost = requested === 0 ? 1 : requested;
  if (cost < 0 || cost > MAX_COST) {
    throw invalidArgument("cost out of range", [{ field: "cost", description: `between 1 and ${MAX_COST}`, reason: ViolationReason.MALFORMED }]);
  }
  return cost;
}

function requireId(field: string, value: string): void {
  if (value.length === 0) {
    throw invalidArgument(`${field} is required`, [{ field, description: "must not be empty", reason: ViolationReason.MISSING }]);
  }
  if (value.length > MAX_ID) {
    throw invalidArgument(`${field} is too long`, [{ field, description: `at most ${MAX_ID} characters`, reason: ViolationReason.MALFORMED }]);
  }
}

function fromProto(r: StoredResponse): StoredResponseData {
  return { status: r.status, body: r.body, headers: { ...r.headers } };
}
