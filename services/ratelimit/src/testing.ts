// Test support (no vitest import, so it also compiles): the store kinds every suite runs
// against, each with a unique Redis key prefix that is deleted afterwards.
import { randomUUID } from "node:crypto";
import { createRedisClient } from "@permits/state";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { LmdbStore } from "./lmdb-store.js";
import { MemoryStore } from "./memory-store.js";
import { RedisStore } from "./redis-store.js";
import type { IdempotencyTimes, RateLimitStore } from "./store.js";

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

export interface StoreKind {
  name: "memory" | "lmdb" | "redis";
  /** A fresh, empty store. */
  make(times?: IdempotencyTimes): Promise<RateLimitStore>;
  /** Closes what `make` opened and deletes every key it wrote. */
  cleanup(): Promise<void>;
}

export function memoryKind(): StoreKind {
  return { name: "memory", make: async (times) => new MemoryStore(times), cleanup: async () => {} };
}

/**
 * The embedded persistent store, each `make` in its own temp STATE_DIR. Without the disk sync:
 * these suites make thousands of decisions one after another, each waiting for its commit, and
 * test the counting rules; durability is tested end to end (test/quota-durability.test.ts).
 */
export function lmdbKind(): StoreKind {
  const opened: Array<{ store: LmdbStore; dir: string }> = [];
  return {
    name: "lmdb",
    async make(times) {
      const dir = await mkdtemp(path.join(tmpdir(), "ratelimit-lmdb-"));
      const store = await LmdbStore.open(dir, { times, noSync: true });
      opened.push({ store, dir });
      return store;
    },
    async cleanup() {
      for (const { store, dir } of opened) {
        await store.close();
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

export function redisKind(url = TEST_REDIS_URL): StoreKind {
  const prefix = `test:rl:${randomUUID()}:`;
  const opened: RedisStore[] = [];
  return {
    name: "redis",
    async make(times) {
      // Generous timeout: the suite tests counting, not latency, and must not flake under load.
      const store = new RedisStore({ url, keyPrefix: `${prefix}${opened.length}:`, commandTimeoutMs: 5000, times });
      opened.push(store);
      await store.connect();
      return store;
    },
    async cleanup() {
      await Promise.all(opened.map((s) => s.close()));
      await deleteKeys(url, prefix);
    },
  };
}

export async function deleteKeys(url: string, prefix: string): Promise<void> {
  const client = createRedisClient({ url, onError: () => {} });
  await client.connect();
  try {
    for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) {
      if (keys.length > 0) await client.del(keys);
    }
  } finally {
    client.destroy();
  }
}

export function ms(iso: string): number {
  return Date.parse(iso);
}
