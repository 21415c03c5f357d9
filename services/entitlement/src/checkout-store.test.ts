// Checkout's records on both backends, each opened twice (like two replicas, or the server and the
// CLI): one claim per session however many race, its keys written with it or not at all, and the
// sealed plaintexts handed out once.
import { afterAll, describe, expect, inject, it } from "vitest";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createClient } from "redis";
import { generateKeyId, generateKeySecret, randomBase62, sha256Hex } from "./keys.js";
import { seal, unseal, type Fulfilment } from "./checkout-store.js";
import type { EntitlementStore, StoredKey } from "./store.js";
import { LmdbStore } from "./lmdb-store.js";
import { RedisStore } from "./redis-store.js";

const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups) await c();
});

const backends: Array<{ name: string; open(): Promise<[EntitlementStore, EntitlementStore]> }> = [
  {
    name: "lmdb",
    async open() {
      const dir = await mkdtemp(path.join(tmpdir(), "checkout-store-"));
      const pair: [EntitlementStore, EntitlementStore] = [await LmdbStore.open(dir), await LmdbStore.open(dir)];
      cleanups.push(async () => {
        for (const s of pair) await s.close();
        await rm(dir, { recursive: true, force: true });
      });
      return pair;
    },
  },
  {
    name: "redis",
    async open() {
      const prefix = `test:checkout:${randomBase62(10)}:`;
      const pair: [RedisStore, RedisStore] = [await RedisStore.connect({ url: REDIS_URL, prefix }), await RedisStore.connect({ url: REDIS_URL, prefix })];
      cleanups.push(async () => {
        const c = createClient({ url: REDIS_URL });
        await c.connect();
        for await (const keys of c.scanIterator({ MATCH: `${prefix}*` })) if (keys.length) await c.del(keys);
        await c.close();
        for (const s of pair) await s.close();
      });
      return pair;
    },
  },
];

const newKeys = (): StoredKey[] =>
  (["live", "test"] as const).map((kind) => ({ id: generateKeyId(), kind, plan: kind === "live" ? "pro" : null, label: "checkout", hash: sha256Hex(generateKeySecret(kind)), createdAt: "2026-11-25T00:00:00.000Z", revokedAt: null }));

const fulfilment = (sessionId: string, subscriptionId: string, keys: StoredKey[], by: Fulfilment["issuedBy"]): Fulfilment => ({
  sessionId, planId: "stormwater_pro", subscriptionId, customerId: "cus_1", keyIds: keys.map((k) => k.id), issuedAt: "2026-11-25T00:00:00.000Z", issuedBy: by,
});

for (const backend of backends) describe.skipIf(backend.name === "redis" && !inject("prerequisites").redis)(`checkout records on ${backend.name}`, () => {
  it("lets one of ten racing claims in, with its keys only; the rest read the winner", async () => {
    const [a, b] = await backend.open();
    const attempts = Array.from({ length: 10 }, (_, i) => {
      const keys = newKeys();
      return { keys, f: fulfilment("cs_test_race", "sub_race", keys, i % 2 ? "page" : "webhook"), store: i % 2 ? a : b };
    });
    const results = await Promise.all(attempts.map(({ store, f, keys }) => store.checkout().claimFulfilment(f, keys, `sealed-${f.keyIds[0]}`)));
    expect(results.filter((r) => r.claimed)).toHaveLength(1);
    const winner = results.find((r) => r.claimed)!.fulfilment;
    for (const r of results) expect(r.fulfilment).toEqual(winner);
    // Exactly the winner's two keys are stored, findable by hash; no loser's key is.
    const stored = await a.listKeys();
    expect(stored.map((k) => k.id).sort()).toEqual([...winner.keyIds].sort());
    const winnerKeys = attempts.find((x) => x.f.keyIds[0] === winner.keyIds[0])!.keys;
    for (const k of winnerKeys) expect((await b.findKeyByHash(k.hash))?.id).toBe(k.id);
    expect(await b.checkout().fulfilmentsOf("sub_race")).toEqual([winner]);
    expect(await a.checkout().fulfilmentOfKey(winner.keyIds[1])).toEqual(winner);
    expect(await a.checkout().fulfilmentOfKey("key_nobody")).toBeUndefined();

    // The sealed value of the winner, once, however many ask at once.
    const takes = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).checkout().takeSealed("cs_test_race", "2026-11-25T01:00:00.000Z")));
    expect(takes.filter((t) => "taken" in t)).toEqual([{ taken: `sealed-${winner.keyIds[0]}` }]);
    expect(takes.filter((t) => "shownAt" in t)).toHaveLength(5);
    expect(await a.checkout().takeSealed("cs_test_race", "2026-11-25T02:00:00.000Z")).toEqual({ shownAt: "2026-11-25T01:00:00.000Z" });
    expect(await a.checkout().takeSealed("cs_test_nothing", "2026-11-25T02:00:00.000Z")).toEqual({ missing: true });
  });

  it("writes nothing of a claim whose key collides with a stored one", async () => {
    const [a] = await backend.open();
    const keys = newKeys();
    await a.insertKey(keys[0]);
    await expect(a.checkout().claimFulfilment(fulfilment("cs_test_collide", "sub_c", keys, "page"), keys, "sealed")).rejects.toThrow();
    expect(await a.checkout().getFulfilment("cs_test_collide")).toBeUndefined();
    expect(await a.getKey(keys[1].id)).toBeUndefined();
    expect(await a.checkout().fulfilmentsOf("sub_c")).toEqual([]);
  });

  it("gives a local session one subscription, the first confirmation's", async () => {
    const [a, b] = await backend.open();
    await a.checkout().putLocalSession({ id: "cs_local_1", planId: "nwp_pro", createdAt: "2026-11-25T00:00:00.000Z" });
    expect(await b.checkout().getLocalSession("cs_local_1")).toEqual({ id: "cs_local_1", planId: "nwp_pro", createdAt: "2026-11-25T00:00:00.000Z" });
    const subs = await Promise.all(["sub_local_a", "sub_local_b", "sub_local_c"].map((s, i) => (i % 2 ? a : b).checkout().claimLocalSubscription("cs_local_1", s)));
    expect(new Set(subs).size).toBe(1);
    expect(await a.checkout().localSubscriptionOf("cs_local_1")).toBe(subs[0]);
  });
});

describe("sealing", () => {
  it("opens only with the same secret and session id", () => {
    const sealed = seal("a-secret-of-sixteen+", "cs_test_1", "svc_live_x");
    expect(sealed).not.toContain("svc_live_x");
    expect(unseal("a-secret-of-sixteen+", "cs_test_1", sealed)).toBe("svc_live_x");
    expect(() => unseal("a-secret-of-sixteen+", "cs_test_2", sealed)).toThrow();
    expect(() => unseal("another-secret-0000", "cs_test_1", sealed)).toThrow();
  });
});
