// One suite, both backends: the file store in a temp STATE_DIR and Redis under a unique prefix.
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createClient } from "redis";
import { generateKeyId, generateKeySecret, randomBase62, sha256Hex } from "./keys.js";
import type { EntitlementStore, StoredKey } from "./store.js";
import { FileStore, STATE_FILE_NAME } from "./store-file.js";
import { RedisStore } from "./store-redis.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

interface Backend {
  name: string;
  /** Two handles on the same storage, like the server and the CLI in two processes. */
  open(): Promise<{ a: EntitlementStore; b: EntitlementStore; cleanup(): Promise<void> }>;
}

const backends: Backend[] = [
  {
    name: "file",
    async open() {
      const dir = await mkdtemp(path.join(tmpdir(), "entitlement-store-"));
      return { a: new FileStore(dir), b: new FileStore(dir), cleanup: () => rm(dir, { recursive: true, force: true }) };
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

describe.each(backends)("$name store", (backend) => {
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

describe("file store specifics", () => {
  it("writes atomically (no temp file left), owner-only, and never stores the plaintext", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "entitlement-file-"));
    try {
      const store = new FileStore(dir);
      const secret = generateKeySecret("live");
      await store.insertKey({ ...newKey("live", "2024-01-01T00:00:00.000Z"), hash: sha256Hex(secret) });
      expect(await readdir(dir)).toEqual([STATE_FILE_NAME]);
      const text = await readFile(path.join(dir, STATE_FILE_NAME), "utf8");
      expect(text).not.toContain(secret);
      expect(text).toContain(sha256Hex(secret));
      expect((await stat(path.join(dir, STATE_FILE_NAME))).mode & 0o077).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses a corrupt state file instead of starting over", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "entitlement-file-"));
    try {
      await writeFile(path.join(dir, STATE_FILE_NAME), "{ not json");
      await expect(new FileStore(dir).listKeys()).rejects.toThrow(/not valid JSON/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
