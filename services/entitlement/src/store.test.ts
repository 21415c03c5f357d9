// One suite, both backends: the LMDB store in a temp STATE_DIR and Redis under a unique prefix.
import { afterAll, beforeEach, describe, expect, inject, it } from "vitest";
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createClient } from "redis";
import { generateKeyId, generateKeySecret, randomBase62, sha256Hex } from "./keys.js";
import type { EntitlementStore, StoredKey } from "./store.js";
import { ENTITLEMENT_DB_FILE, LmdbStore } from "./lmdb-store.js";
import { LEGACY_STATE_FILE, MIGRATED_SUFFIX } from "./legacy-state-file.js";
import { RedisStore } from "./redis-store.js";

const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

interface Backend {
  name: string;
  /** Two handles on the same storage, like the server and the CLI in two processes. */
  open(): Promise<{ a: EntitlementStore; b: EntitlementStore; cleanup(): Promise<void> }>;
}

const backends: Backend[] = [
  {
    name: "lmdb",
    async open() {
      const dir = await mkdtemp(path.join(tmpdir(), "entitlement-store-"));
      const a = await LmdbStore.open(dir);
      const b = await LmdbStore.open(dir);
      return {
        a,
        b,
        async cleanup() {
          await a.close();
          await b.close();
          await rm(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: "redis",
    async open() {
      const prefix = `test:entitlement:${randomBase62(10)}:`;
      const a = await RedisStore.connect({ url: REDIS_URL, prefix });
      const b = await RedisStore.connect({ url: REDIS_URL, prefix });
      return {
        a,
        b,
        async cleanup() {
          const c = createClient({ url: REDIS_URL });
          await c.connect();
          await c.del(a.ownedKeys());
          await c.close();
          await a.close();
          await b.close();
        },
      };
    },
  },
];

function newKey(kind: "live" | "test", createdAt: string, plan: "pro" | "scale" | null = kind === "live" ? "pro" : null): StoredKey {
  return { id: generateKeyId(), kind, plan, label: `label ${createdAt}`, hash: sha256Hex(generateKeySecret(kind)), createdAt, revokedAt: null };
}

for (const backend of backends) describe.skipIf(backend.name === "redis" && !inject("prerequisites").redis)(`${backend.name} store`, () => {
  let a: EntitlementStore;
  let b: EntitlementStore;
  const cleanups: Array<() => Promise<void>> = [];

  beforeEach(async () => {
    const opened = await backend.open();
    a = opened.a;
    b = opened.b;
    cleanups.push(opened.cleanup);
  });
  afterAll(async () => {
    for (const c of cleanups) await c();
  });

  it("answers a ping", async () => {
    await expect(a.ping()).resolves.toBeUndefined();
  });

  it("starts empty", async () => {
    expect(await a.listKeys()).toEqual([]);
    expect(await a.findKeyByHash(sha256Hex("nothing"))).toBeUndefined();
    expect(await a.getSubscription("sub_1")).toBeUndefined();
  });

  it("inserts, finds by hash and by id, lists oldest first", async () => {
    const k1 = newKey("live", "2024-01-01T00:00:00.000Z", "scale");
    const k2 = newKey("test", "2024-01-02T00:00:00.000Z");
    await a.insertKey(k2);
    await a.insertKey(k1);
    expect(await a.findKeyByHash(k1.hash)).toEqual(k1);
    expect(await a.getKey(k2.id)).toEqual(k2);
    expect((await a.listKeys()).map((k) => k.id)).toEqual([k1.id, k2.id]);
  });

  it("refuses a duplicate id or hash", async () => {
    const k = newKey("live", "2024-01-01T00:00:00.000Z");
    await a.insertKey(k);
    await expect(a.insertKey({ ...k, id: generateKeyId() })).rejects.toThrow();
    await expect(a.insertKey({ ...k, hash: sha256Hex("other") })).rejects.toThrow();
    expect(await a.listKeys()).toHaveLength(1);
  });

  it("revokes idempotently and returns undefined for an unknown id", async () => {
    const k = newKey("test", "2024-01-01T00:00:00.000Z");
    await a.insertKey(k);
    const first = await a.revokeKey(k.id, "2024-02-01T00:00:00.000Z");
    expect(first?.revokedAt).toBe("2024-02-01T00:00:00.000Z");
    const again = await a.revokeKey(k.id, "2024-03-01T00:00:00.000Z");
    expect(again?.revokedAt).toBe("2024-02-01T00:00:00.000Z");
    expect((await a.findKeyByHash(k.hash))?.revokedAt).toBe("2024-02-01T00:00:00.000Z");
    expect(await a.revokeKey("key_nope", "2024-03-01T00:00:00.000Z")).toBeUndefined();
  });

  it("keeps local subscriptions", async () => {
    await a.setSubscription("sub_1Abc", "active");
    expect(await a.getSubscription("sub_1Abc")).toBe("active");
    await a.setSubscription("sub_1Abc", "canceled");
    expect(await a.getSubscription("sub_1Abc")).toBe("canceled");
  });

  it("sees a key issued or revoked through another handle on the next call", async () => {
    const k = newKey("live", "2024-01-01T00:00:00.000Z");
    expect(await a.findKeyByHash(k.hash)).toBeUndefined(); // a has cached "nothing"
    await b.insertKey(k);
    expect((await a.findKeyByHash(k.hash))?.id).toBe(k.id);
    await b.revokeKey(k.id, "2024-02-01T00:00:00.000Z");
    expect((await a.findKeyByHash(k.hash))?.revokedAt).toBe("2024-02-01T00:00:00.000Z");
    await b.setSubscription("sub_x", "trialing");
    expect(await a.getSubscription("sub_x")).toBe("trialing");
  });

  it("loses no write when one handle issues many keys concurrently", async () => {
    const keys = Array.from({ length: 20 }, (_, i) => newKey("test", `2024-01-01T00:00:${String(i).padStart(2, "0")}.000Z`));
    await Promise.all(keys.map((k) => a.insertKey(k)));
    expect((await b.listKeys()).map((k) => k.id)).toEqual(keys.map((k) => k.id));
  });
});

async function withDir(run: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), "entitlement-lmdb-"));
  try {
    await run(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe("LMDB store specifics", () => {
  it("keeps its directory owner-only and never stores the plaintext", async () => {
    await withDir(async (parent) => {
      const dir = path.join(parent, "state");
      const store = await LmdbStore.open(dir);
      const secret = generateKeySecret("live");
      await store.insertKey({ ...newKey("live", "2024-01-01T00:00:00.000Z"), hash: sha256Hex(secret) });
      await store.close();
      const bytes = await readFile(path.join(dir, ENTITLEMENT_DB_FILE));
      expect(bytes.includes(Buffer.from(secret))).toBe(false);
      expect(bytes.includes(Buffer.from(sha256Hex(secret)))).toBe(true);
      expect((await stat(dir)).mode & 0o077).toBe(0);
    });
  });

  it("keeps what it stored across a reopen", async () => {
    await withDir(async (dir) => {
      const k = newKey("live", "2024-01-01T00:00:00.000Z", "scale");
      const first = await LmdbStore.open(dir);
      await first.insertKey(k);
      await first.setSubscription("sub_1Keep", "trialing");
      await first.close();
      const again = await LmdbStore.open(dir);
      expect(await again.findKeyByHash(k.hash)).toEqual(k);
      expect(await again.getSubscription("sub_1Keep")).toBe("trialing");
      await again.close();
    });
  });

  it("migrates an entitlement.json once, keeping it aside as a backup", async () => {
    await withDir(async (dir) => {
      const k1 = newKey("live", "2024-01-01T00:00:00.000Z", "pro");
      const k2 = { ...newKey("test", "2024-01-02T00:00:00.000Z"), revokedAt: "2024-02-01T00:00:00.000Z" };
      await writeFile(path.join(dir, LEGACY_STATE_FILE), JSON.stringify({ keys: [k1, k2], subscriptions: { sub_1Old: "active" } }));
      const store = await LmdbStore.open(dir);
      expect(await store.listKeys()).toEqual([k1, k2]);
      expect(await store.getSubscription("sub_1Old")).toBe("active");
      expect((await readdir(dir)).sort()).toEqual([ENTITLEMENT_DB_FILE, `${ENTITLEMENT_DB_FILE}-lock`, LEGACY_STATE_FILE + MIGRATED_SUFFIX].sort());
      await store.close();
      // A second start finds nothing left to migrate and keeps the same keys.
      const again = await LmdbStore.open(dir);
      expect((await again.listKeys()).map((k) => k.id)).toEqual([k1.id, k2.id]);
      await again.close();
    });
  });

  it("refuses a corrupt entitlement.json instead of starting over", async () => {
    await withDir(async (dir) => {
      await writeFile(path.join(dir, LEGACY_STATE_FILE), "{ not json");
      await expect(LmdbStore.open(dir)).rejects.toThrow(/not valid JSON/);
      expect(await readdir(dir)).toContain(LEGACY_STATE_FILE);
    });
  });
});
