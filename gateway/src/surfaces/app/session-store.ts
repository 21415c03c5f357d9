// Where the app's sessions live, keyed by the SHA-256 of the session id (the cookie's value is
// never stored): Redis when the gateway has REDIS_URL (every replica sees every session), else an
// LMDB file under STATE_DIR (the embedded deployment; several processes on one STATE_DIR share
// it). A record past its idle limit is treated as absent and removed.
import { createHash } from "node:crypto";
import type { AppAccess, Plan } from "@permits/proto/entitlement/v1/entitlement";
import { createRedisClient, openLmdb } from "@permits/state";

export interface SessionRecord {
  accountId: string;
  keyId: string;
  plan: Plan;
  access: AppAccess;
  /** Unix milliseconds of sign-in and of the last request seen. */
  createdAt: number;
  seenAt: number;
}

export interface SessionStore {
  get(digest: string): Promise<SessionRecord | undefined>;
  /** Writes the record; the store may forget it `ttlMs` after this write. */
  put(digest: string, record: SessionRecord, ttlMs: number): Promise<void>;
  delete(digest: string): Promise<void>;
  close(): Promise<void>;
}

export function sessionDigest(id: string): string {
  return createHash("sha256").update(id).digest("hex");
}

function parseRecord(value: unknown): SessionRecord | undefined {
  const v = value as Partial<SessionRecord> | null;
  const ok = v !== null && typeof v === "object" && typeof v.accountId === "string" && typeof v.keyId === "string" && typeof v.plan === "number" && typeof v.access === "number" && typeof v.createdAt === "number" && typeof v.seenAt === "number";
  return ok ? (v as SessionRecord) : undefined;
}

const PREFIX = "app-session:";

export async function redisSessionStore(url: string): Promise<SessionStore> {
  const client = createRedisClient({ url, onError: () => {} }); // a failed call answers the page's own error
  await client.connect();
  return {
    get: async (d) => {
      const text = await client.get(PREFIX + d);
      return text ? parseRecord(JSON.parse(text)) : undefined;
    },
    put: async (d, r, ttlMs) => void (await client.set(PREFIX + d, JSON.stringify(r), { PX: ttlMs })),
    delete: async (d) => void (await client.del(PREFIX + d)),
    close: async () => void (await client.close()),
  };
}

export async function lmdbSessionStore(stateDir: string): Promise<SessionStore> {
  const db = await openLmdb(stateDir, "app-sessions", { maxDbs: 1 });
  return {
    get: async (d) => parseRecord(db.get(d)),
    put: async (d, r) => void (await db.put(d, r)),
    delete: async (d) => void (await db.remove(d)),
    close: async () => db.close(),
  };
}

/** Opens the store on the first session read or write: a gateway nobody signs in to opens nothing. */
export function lazySessionStore(open: () => Promise<SessionStore>): SessionStore {
  let opening: Promise<SessionStore> | undefined;
  const store = () => (opening ??= open());
  return {
    get: async (d) => (await store()).get(d),
    put: async (d, r, ttlMs) => (await store()).put(d, r, ttlMs),
    delete: async (d) => (await store()).delete(d),
    close: async () => {
      if (opening) await (await opening).close();
    },
  };
}
