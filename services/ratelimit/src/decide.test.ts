// The decision suite, run unchanged against every store: memory, LMDB and Redis.
// Time comes from a ManualClock; nothing sleeps.
import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, inject, it } from "vitest";
import fc from "fast-check";
import { Code, ConnectError, createClient, createRouterTransport, type Client } from "@connectrpc/connect";
import { ManualClock } from "@permits/runtime";
import { badRequestOf } from "@permits/rules";
import { RateLimitService } from "@permits/proto/ratelimit/v1/ratelimit";
import { loadPolicies, policiesFrom, type Policy, type PolicyTable } from "./policies.js";
import { createRateLimitService } from "./service.js";
import type { RateLimitStore } from "./store.js";
import { lmdbKind, memoryKind, ms, redisKind, type StoreKind } from "./testing.js";

// Without a Redis the redis store's decisions are skipped (the global setup says how to start one).
const redisUp = inject("prerequisites").redis;

const tiers = loadPolicies();
const custom = policiesFrom({
  version: 1,
  policies: [
    { id: "t.minute5", document: "internal", tier: "t", bucketBy: "ip", windows: [{ name: "minute", limit: 5 }] },
    { id: "t.month3", document: "internal", tier: "t", bucketBy: "key", windows: [{ name: "month", limit: 3, quota: true }] },
    { id: "t.month30", document: "internal", tier: "t", bucketBy: "key", windows: [{ name: "minute", limit: 1000 }, { name: "month", limit: 30, quota: true }] },
  ],
});
const allPolicies: PolicyTable = new Map([...tiers, ...custom]);

/**
 * The tiers with every limit above STORE_LIMIT_FROM brought down near it, in the same order
 * (windows of one policy keep their order, so the same one binds). The persistent stores count
 * to these: call 10,000 on LMDB or Redis is the same write as call 400, and the real limits are
 * counted out on the memory store, where the decisions are made by the same service (it took
 * about 15 of this file's 22 s to count them out on all three stores, 2026-11-28).
 */
const STORE_LIMIT_FROM = 300;
const storeTiers: PolicyTable = new Map(
  [...tiers].map(([id, p]) => [id, { ...p, windows: p.windows.map((w) => ({ ...w, limit: w.limit <= STORE_LIMIT_FROM ? w.limit : STORE_LIMIT_FROM + Math.ceil((w.limit - STORE_LIMIT_FROM) / 100) })) }]),
);

type RL = Client<typeof RateLimitService>;

function harness(store: RateLimitStore, clock: ManualClock, policies: PolicyTable = allPolicies): RL {
  const impl = createRateLimitService({ store, policies, clock });
  return createClient(RateLimitService, createRouterTransport(({ service }) => service(RateLimitService, impl)));
}

const kinds: StoreKind[] = [memoryKind(), lmdbKind(), ...(redisUp ? [redisKind()] : [])];
if (!redisUp) it.skip("decisions on the redis store (no Redis answers: see the run's opening lines)", () => {});
afterAll(async () => {
  await Promise.all(kinds.map((k) => k.cleanup()));
});

describe.each(kinds)("decisions on the $name store", (kind) => {
  async function setup(startIso = "2026-03-01T00:00:00.000Z", policies?: PolicyTable) {
    const clock = new ManualClock(ms(startIso));
    const rl = harness(await kind.make(), clock, policies);
    return { clock, rl, bucket: `ip:${randomUUID()}` };
  }

  const limits = kind.name === "memory" ? tiers : storeTiers;
  describe.each([...limits.values()].flatMap((p) => p.windows.map((w, j) => ({ policy: p, j, window: w.name, limit: w.limit }))))(
    "$policy.id: call $limit + 1 of the $window window is refused",
    ({ policy, j, limit }) => {
      it("admits exactly the limit, then refuses with that window binding", async () => {
        const { clock, rl, bucket } = await setup(undefined, new Map([...allPolicies, ...limits]));
        const step = spacingFor(policy, j);
        for (let i = 0; i < limit; i++) {
          const r = await rl.decide({ policy: policy.id, bucket });
          expect(r.allowed, `call ${i + 1}`).toBe(true);
          clock.advance(step);
        }
        const refused = await rl.decide({ policy: policy.id, bucket });
        expect(refused.allowed).toBe(false);
        expect(refused.bindingWindow).toBe(j);
        expect(refused.windows[j]).toMatchObject({ limit, used: limit, remaining: 0 });
        expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
        expect(refused.windows.map((w) => w.name)).toEqual(policy.windows.map((w) => w.name));
        // The refusal spent nothing in any window.
        const usage = await rl.getUsage({ policy: policy.id, bucket });
        expect(usage.windows.map((w) => w.used)).toEqual(refused.windows.map((w) => w.used));
      });
    },
  );

  it("refused calls consume nothing: the day counter stays where the minute limit stopped it", async () => {
    const { rl, bucket } = await setup();
    for (let i = 0; i < 4; i++) expect((await rl.decide({ policy: "stormwater.anonymous", bucket })).allowed).toBe(true);
    for (let i = 0; i < 6; i++) {
      const r = await rl.decide({ policy: "stormwater.anonymous", bucket });
      expect(r).toMatchObject({ allowed: false, bindingWindow: 0, retryAfterSeconds: 60 });
      expect(r.windows[1].used).toBe(4);
    }
    const usage = await rl.getUsage({ policy: "stormwater.anonymous", bucket });
    expect(usage.windows.map((w) => [w.name, w.used, w.remaining])).toEqual([["minute", 4, 0], ["day", 4, 16]]);
  });

  it("reports every window and points at the one closest to refusing", async () => {
    const { clock, rl, bucket } = await setup("2026-03-14T10:00:00.000Z");
    const r = await rl.decide({ policy: "stormwater.pro", bucket });
    expect(r).toMatchObject({ allowed: true, bindingWindow: 0, retryAfterSeconds: 0, degraded: false });
    expect(r.windows[0]).toMatchObject({ name: "minute", limit: 60, used: 1, remaining: 59, windowSeconds: 60, quota: false, resetAt: clock.now() / 1000 + 60 });
    expect(r.windows[1]).toMatchObject({ name: "month", limit: 1000, used: 1, remaining: 999, windowSeconds: 31 * 86400, quota: true, resetAt: ms("2026-04-01T00:00:00Z") / 1000 });
  });

  it("a refund gives back the quota units of a decision, not the throttle's, and never below zero", async () => {
    const { clock, rl, bucket } = await setup("2026-03-14T10:00:00.000Z");
    await rl.decide({ policy: "stormwater.pro", bucket });
    const d = await rl.decide({ policy: "stormwater.pro", bucket, cost: 3 });
    expect(d.decidedAt).toBe(ms("2026-03-14T10:00:00.000Z") / 1000);
    expect(d.windows.map((w) => w.used)).toEqual([4, 4]);
    const r = await rl.refund({ policy: "stormwater.pro", bucket, cost: 3, decidedAt: d.decidedAt });
    expect(r.windows.map((w) => [w.name, w.used, w.remaining])).toEqual([["minute", 4, 56], ["month", 1, 999]]);
    await rl.refund({ policy: "stormwater.pro", bucket, cost: 5, decidedAt: d.decidedAt });
    expect((await rl.getUsage({ policy: "stormwater.pro", bucket })).windows.map((w) => w.used)).toEqual([4, 0]);
    // A refund after the month turned goes to the month the decision counted in, not the new one.
    clock.set(ms("2026-03-31T23:59:59.000Z"));
    const late = await rl.decide({ policy: "stormwater.pro", bucket });
    clock.set(ms("2026-04-01T00:00:01.000Z"));
    await rl.decide({ policy: "stormwater.pro", bucket });
    await rl.refund({ policy: "stormwater.pro", bucket, cost: 1, decidedAt: late.decidedAt });
    expect((await rl.getUsage({ policy: "stormwater.pro", bucket })).windows[1]).toMatchObject({ name: "month", used: 1 });
    // Anything but a recent decision is refused.
    await expect(rl.refund({ policy: "stormwater.pro", bucket, cost: 1, decidedAt: 0 })).rejects.toMatchObject({ code: Code.InvalidArgument });
  });

  it("the sliding minute refuses across a minute boundary, where a fixed window would not", async () => {
    const { clock, rl, bucket } = await setup("2026-03-01T12:00:59.500Z");
    for (let i = 0; i < 4; i++) expect((await rl.decide({ policy: "stormwater.anonymous", bucket })).allowed).toBe(true);
    clock.set(ms("2026-03-01T12:01:00.100Z"));
    const refused = await rl.decide({ policy: "stormwater.anonymous", bucket });
    expect(refused.allowed).toBe(false);
    // The oldest entry leaves the span at 12:01:59.500, so retry in 59.4 s, rounded up.
    expect(refused.retryAfterSeconds).toBe(60);
    expect(refused.windows[0].resetAt).toBe(Math.ceil(ms("2026-03-01T12:01:59.500Z") / 1000));
    clock.set(ms("2026-03-01T12:01:59.499Z"));
    expect((await rl.decide({ policy: "stormwater.anonymous", bucket })).allowed).toBe(false);
    clock.set(ms("2026-03-01T12:01:59.500Z"));
    expect((await rl.decide({ policy: "stormwater.anonymous", bucket })).allowed).toBe(true);
  });

  it("the sliding minute never admits more than its limit in any 60 s span, and refuses only when full (property)", async () => {
    const gaps = fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 2_000 }), fc.integer({ min: 0, max: 70_000 })), { minLength: 1, maxLength: 40 });
    await fc.assert(
      fc.asyncProperty(gaps, async (steps) => {
        const { clock, rl, bucket } = await setup("2026-03-01T00:00:00.000Z");
        const admitted: number[] = [];
        for (const step of steps) {
          clock.advance(step);
          const t = clock.now();
          const inSpan = admitted.filter((a) => a > t - 60_000).length;
          const r = await rl.decide({ policy: "t.minute5", bucket });
          expect(r.allowed).toBe(inSpan < 5);
          if (r.allowed) admitted.push(t);
          else expect(t + r.retryAfterSeconds * 1000).toBeGreaterThanOrEqual(admitted[admitted.length - 5] + 60_000);
        }
        for (let i = 0; i + 5 < admitted.length; i++) expect(admitted[i + 5] - admitted[i]).toBeGreaterThanOrEqual(60_000);
      }),
      { numRuns: kind.name === "redis" ? 60 : 150 },
    );
  });

  it("a day window resets at 00:00 UTC", async () => {
    const { clock, rl, bucket } = await setup("2026-03-14T23:59:59.000Z");
    for (let i = 0; i < 50; i++) expect((await rl.decide({ policy: "nwp.free", bucket })).allowed).toBe(true);
    const refused = await rl.decide({ policy: "nwp.free", bucket });
    expect(refused).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    expect(refused.windows[0].resetAt).toBe(ms("2026-03-15T00:00:00Z") / 1000);
    clock.set(ms("2026-03-14T23:59:59.999Z"));
    expect((await rl.decide({ policy: "nwp.free", bucket })).allowed).toBe(false);
    clock.set(ms("2026-03-15T00:00:00.000Z"));
    const fresh = await rl.decide({ policy: "nwp.free", bucket });
    expect(fresh.allowed).toBe(true);
    expect(fresh.windows[0]).toMatchObject({ used: 1, remaining: 49, resetAt: ms("2026-03-16T00:00:00Z") / 1000, windowSeconds: 86400 });
  });

  it("an hour window resets on the hour", async () => {
    const { clock, rl, bucket } = await setup("2026-03-14T10:59:00.000Z");
    for (let i = 0; i < 25; i++) expect((await rl.decide({ policy: "nwp.sandbox", bucket })).allowed).toBe(true);
    const refused = await rl.decide({ policy: "nwp.sandbox", bucket });
    expect(refused).toMatchObject({ allowed: false, retryAfterSeconds: 60 });
    clock.set(ms("2026-03-14T11:00:00.000Z"));
    expect((await rl.decide({ policy: "nwp.sandbox", bucket })).windows[0]).toMatchObject({ used: 1, windowSeconds: 3600 });
  });

  it.each([
    ["2026-02-28T23:59:59.000Z", "2026-03-01T00:00:00.000Z", 28],
    ["2028-02-29T12:00:00.000Z", "2028-03-01T00:00:00.000Z", 29],
    ["2026-04-30T23:00:00.000Z", "2026-05-01T00:00:00.000Z", 30],
    ["2026-12-31T23:59:59.999Z", "2027-01-01T00:00:00.000Z", 31],
  ])("a monthly quota filled on %s resets on the 1st (%s) after a %i-day month", async (fill, next, days) => {
    const { clock, rl, bucket } = await setup(fill);
    for (let i = 0; i < 3; i++) expect((await rl.decide({ policy: "t.month3", bucket })).allowed).toBe(true);
    const refused = await rl.decide({ policy: "t.month3", bucket });
    expect(refused.allowed).toBe(false);
    expect(refused.windows[0]).toMatchObject({ quota: true, used: 3, remaining: 0, resetAt: ms(next) / 1000, windowSeconds: days * 86400 });
    expect(refused.retryAfterSeconds).toBe(Math.max(1, Math.ceil((ms(next) - ms(fill)) / 1000)));
    clock.set(ms(next) - 1);
    expect((await rl.decide({ policy: "t.month3", bucket })).allowed).toBe(false);
    clock.set(ms(next));
    expect((await rl.decide({ policy: "t.month3", bucket })).windows[0].used).toBe(1);
  });

  it("keeps buckets apart: per IP, per key, and across policies and documents", async () => {
    const { rl } = await setup();
    const a = `ip:${randomUUID()}`;
    const b = `ip:${randomUUID()}`;
    for (let i = 0; i < 4; i++) await rl.decide({ policy: "stormwater.anonymous", bucket: a });
    expect((await rl.decide({ policy: "stormwater.anonymous", bucket: a })).allowed).toBe(false);
    expect((await rl.decide({ policy: "stormwater.anonymous", bucket: b })).allowed).toBe(true);
    // The same IP under another tier or the other document has its own counters.
    expect((await rl.decide({ policy: "stormwater.sandbox", bucket: a })).windows[0].used).toBe(1);
    expect((await rl.decide({ policy: "nwp.sandbox", bucket: a })).windows[0].used).toBe(1);
    expect((await rl.decide({ policy: "recover", bucket: a })).windows[0].used).toBe(1);
  });

  it("50 concurrent decisions admit exactly the limit", async () => {
    const { rl, bucket } = await setup();
    const burst = await Promise.all(Array.from({ length: 50 }, () => rl.decide({ policy: "stormwater.anonymous", bucket })));
    expect(burst.filter((r) => r.allowed)).toHaveLength(4);
    const quota = await Promise.all(Array.from({ length: 50 }, () => rl.decide({ policy: "t.month30", bucket })));
    expect(quota.filter((r) => r.allowed)).toHaveLength(30);
    const usage = await rl.getUsage({ policy: "t.month30", bucket });
    expect(usage.windows.map((w) => w.used)).toEqual([30, 30]);
  });

  it("cost counts several units at once, all or nothing", async () => {
    const { rl, bucket } = await setup();
    expect((await rl.decide({ policy: "t.month30", bucket, cost: 29 })).windows[1].used).toBe(29);
    const refused = await rl.decide({ policy: "t.month30", bucket, cost: 2 });
    expect(refused.allowed).toBe(false);
    expect(refused.windows.map((w) => w.used)).toEqual([29, 29]);
    expect((await rl.decide({ policy: "t.month30", bucket, cost: 1 })).allowed).toBe(true);
  });

  it("getUsage spends nothing", async () => {
    const { rl, bucket } = await setup();
    await rl.decide({ policy: "stormwater.anonymous", bucket });
    for (let i = 0; i < 10; i++) await rl.getUsage({ policy: "stormwater.anonymous", bucket });
    const usage = await rl.getUsage({ policy: "stormwater.anonymous", bucket });
    expect(usage.policy).toBe("stormwater.anonymous");
    expect(usage.windows.map((w) => w.used)).toEqual([1, 1]);
  });

  it("refuses an unknown policy, an empty bucket and a negative cost with InvalidArgument", async () => {
    const { rl, bucket } = await setup();
    const err = await rl.decide({ policy: "stormwater.gold", bucket }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectError);
    expect((err as ConnectError).code).toBe(Code.InvalidArgument);
    expect(badRequestOf(err as ConnectError)?.violations[0]).toMatchObject({ field: "policy", knownValues: expect.arrayContaining(["stormwater.pro"]) });
    await expect(rl.getUsage({ policy: "nope", bucket })).rejects.toMatchObject({ code: Code.InvalidArgument });
    await expect(rl.decide({ policy: "recover", bucket: "" })).rejects.toMatchObject({ code: Code.InvalidArgument });
    await expect(rl.decide({ policy: "recover", bucket, cost: -1 })).rejects.toMatchObject({ code: Code.InvalidArgument });
  });
});

/** Spacing that keeps the minute window from binding while window `j` fills (0 when it is the minute). */
function spacingFor(policy: Policy, j: number): number {
  const minute = policy.windows.find((w) => w.name === "minute");
  if (!minute || policy.windows[j].name === "minute") return 0;
  return Math.ceil(60_000 / minute.limit);
}
