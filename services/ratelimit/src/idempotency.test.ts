// Idempotency records, run unchanged against the memory, LMDB and Redis stores with a ManualClock.
import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, inject, it } from "vitest";
import { Code, createClient, createRouterTransport, type Client } from "@connectrpc/connect";
import { ManualClock } from "@permits/runtime";
import { IdempotencyState, RateLimitService } from "@permits/proto/ratelimit/v1/ratelimit";
import { loadPolicies } from "./policies.js";
import { createRateLimitService } from "./service.js";
import { lmdbKind, memoryKind, ms, redisKind, type StoreKind } from "./testing.js";

const redisUp = inject("prerequisites").redis;
const kinds: StoreKind[] = [memoryKind(), lmdbKind(), ...(redisUp ? [redisKind()] : [])];
if (!redisUp) it.skip("idempotency on the redis store (no Redis answers: see the run's opening lines)", () => {});
afterAll(async () => {
  await Promise.all(kinds.map((k) => k.cleanup()));
});

const policies = loadPolicies();
const response = {
  status: 200,
  body: new TextEncoder().encode('{"determination":"permit_required","é":"ü"}'),
  headers: { "content-type": "application/json", "x-request-id": "r-1" },
};

describe.each(kinds)("idempotency on the $name store", (kind) => {
  async function setup() {
    const clock = new ManualClock(ms("2026-03-14T10:00:00.000Z"));
    const impl = createRateLimitService({ store: await kind.make(), policies, clock });
    const rl: Client<typeof RateLimitService> = createClient(RateLimitService, createRouterTransport(({ service }) => service(RateLimitService, impl)));
    return { clock, rl, scope: `key:${randomUUID()}`, key: randomUUID() };
  }

  it("claims, reports in-flight, then replays the stored response byte for byte", async () => {
    const { rl, scope, key } = await setup();
    expect((await rl.beginIdempotent({ scope, key, fingerprint: "fp1" })).state).toBe(IdempotencyState.CLAIMED);
    expect((await rl.beginIdempotent({ scope, key, fingerprint: "fp1" })).state).toBe(IdempotencyState.IN_FLIGHT);
    await rl.completeIdempotent({ scope, key, fingerprint: "fp1", response });
    const replay = await rl.beginIdempotent({ scope, key, fingerprint: "fp1" });
    expect(replay.state).toBe(IdempotencyState.REPLAY);
    expect(replay.stored?.status).toBe(200);
    expect(Buffer.from(replay.stored!.body).equals(Buffer.from(response.body))).toBe(true);
    expect(replay.stored?.headers).toEqual(response.headers);
  });

  it("refuses the same key with a different fingerprint, while in flight and once completed", async () => {
    const { rl, scope, key } = await setup();
    await rl.beginIdempotent({ scope, key, fingerprint: "fp1" });
    expect((await rl.beginIdempotent({ scope, key, fingerprint: "fp2" })).state).toBe(IdempotencyState.MISMATCH);
    await rl.completeIdempotent({ scope, key, fingerprint: "fp1", response });
    expect((await rl.beginIdempotent({ scope, key, fingerprint: "fp2" })).state).toBe(IdempotencyState.MISMATCH);
  });

  it("keeps scopes apart: the same key under another API key is a new claim", async () => {
    const { rl, scope, key } = await setup();
    await rl.beginIdempotent({ scope, key, fingerprint: "fp1" });
    expect((await rl.beginIdempotent({ scope: `${scope}-other`, key, fingerprint: "fp2" })).state).toBe(IdempotencyState.CLAIMED);
  });

  it("gives exactly one of many concurrent duplicates the claim", async () => {
    const { rl, scope, key } = await setup();
    const states = await Promise.all(Array.from({ length: 30 }, () => rl.beginIdempotent({ scope, key, fingerprint: "fp1" })));
    expect(states.filter((s) => s.state === IdempotencyState.CLAIMED)).toHaveLength(1);
    expect(states.filter((s) => s.state === IdempotencyState.IN_FLIGHT)).toHaveLength(29);
  });

  it("release frees a claim for a retry, but never deletes a stored response", async () => {
    const { rl, scope, key } = await setup();
    await rl.beginIdempotent({ scope, key, fingerprint: "fp1" });
    await rl.releaseIdempotent({ scope, key });
    expect((await rl.beginIdempotent({ scope, key, fingerprint: "fp2" })).state).toBe(IdempotencyState.CLAIMED);
    await rl.completeIdempotent({ scope, key, fingerprint: "fp2", response });
    await rl.releaseIdempotent({ scope, key });
    expect((await rl.beginIdempotent({ scope, key, fingerprint: "fp2" })).state).toBe(IdempotencyState.REPLAY);
  });

  it("keeps the first stored response; a second complete does not overwrite it", async () => {
    const { rl, scope, key } = await setup();
    await rl.beginIdempotent({ scope, key, fingerprint: "fp1" });
    await rl.completeIdempotent({ scope, key, fingerprint: "fp1", response });
    await rl.completeIdempotent({ scope, key, fingerprint: "fp1", response: { ...response, status: 500 } });
    expect((await rl.beginIdempotent({ scope, key, fingerprint: "fp1" })).stored?.status).toBe(200);
  });

  it("does not let a request store over another request's claim", async () => {
    const { rl, scope, key } = await setup();
    await rl.beginIdempotent({ scope, key, fingerprint: "fp1" });
    await rl.completeIdempotent({ scope, key, fingerprint: "fp2", response });
    expect((await rl.beginIdempotent({ scope, key, fingerprint: "fp1" })).state).toBe(IdempotencyState.IN_FLIGHT);
  });

  it("expires a stored response after 24 hours", async () => {
    const { clock, rl, scope, key } = await setup();
    await rl.beginIdempotent({ scope, key, fingerprint: "fp1" });
    await rl.completeIdempotent({ scope, key, fingerprint: "fp1", response });
    clock.advance(24 * 3_600_000 - 1);
    expect((await rl.beginIdempotent({ scope, key, fingerprint: "fp1" })).state).toBe(IdempotencyState.REPLAY);
    clock.advance(1);
    // Pruned: the key may be reused, even with a different request.
    expect((await rl.beginIdempotent({ scope, key, fingerprint: "fp2" })).state).toBe(IdempotencyState.CLAIMED);
  });

  it("lets an abandoned claim lapse after its lease, so a crashed request does not block the key for a day", async () => {
    const { clock, rl, scope, key } = await setup();
    await rl.beginIdempotent({ scope, key, fingerprint: "fp1" });
    clock.advance(59_999);
    expect((await rl.beginIdempotent({ scope, key, fingerprint: "fp1" })).state).toBe(IdempotencyState.IN_FLIGHT);
    clock.advance(1);
    expect((await rl.beginIdempotent({ scope, key, fingerprint: "fp1" })).state).toBe(IdempotencyState.CLAIMED);
  });

  it("requires scope, key, fingerprint and a response", async () => {
    const { rl, scope, key } = await setup();
    await expect(rl.beginIdempotent({ scope, key, fingerprint: "" })).rejects.toMatchObject({ code: Code.InvalidArgument });
    await expect(rl.beginIdempotent({ scope: "", key, fingerprint: "f" })).rejects.toMatchObject({ code: Code.InvalidArgument });
    await expect(rl.completeIdempotent({ scope, key, fingerprint: "f" })).rejects.toMatchObject({ code: Code.InvalidArgument });
    await expect(rl.releaseIdempotent({ scope, key: "" })).rejects.toMatchObject({ code: Code.InvalidArgument });
  });
});
