// File backend: one JSON document in STATE_DIR. Written atomically (temp file + rename) so a
// reader never sees half a file; re-read whenever its identity (inode, mtime, size) changes, so
// a key issued or revoked by another process (the CLI) takes effect on the next call.
import { mkdir, open, readFile, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { randomBase62 } from "./keys.js";
import {
  isLocalSubscriptionStatus,
  parseStoredKey,
  type EntitlementStore,
  type LocalSubscriptionStatus,
  type StoredKey,
} from "./store.js";

export const STATE_FILE_NAME = "entitlement.json";

interface State {
  keys: StoredKey[];
  subscriptions: Record<string, LocalSubscriptionStatus>;
}

interface Snapshot {
  state: State;
  byHash: Map<string, StoredKey>;
  byId: Map<string, StoredKey>;
  /** Identity of the file this snapshot came from; "missing" when there was none. */
  signature: string;
}

function emptyState(): State {
  return { keys: [], subscriptions: {} };
}

function index(state: State, signature: string): Snapshot {
  return {
    state,
    byHash: new Map(state.keys.map((k) => [k.hash, k])),
    byId: new Map(state.keys.map((k) => [k.id, k])),
    signature,
  };
}

function parseState(text: string, file: string): State {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    // Never start over silently: that would drop every issued key.
    throw new Error(`entitlement state file ${file} is not valid JSON`);
  }
  const obj = raw as { keys?: unknown; subscriptions?: unknown };
  if (!obj || typeof obj !== "object" || !Array.isArray(obj.keys)) {
    throw new Error(`entitlement state file ${file} has no keys array`);
  }
  const subscriptions: Record<string, LocalSubscriptionStatus> = {};
  for (const [id, status] of Object.entries((obj.subscriptions ?? {}) as Record<string, unknown>)) {
    if (!isLocalSubscriptionStatus(status)) throw new Error(`entitlement state file ${file} has a bad subscription status`);
    subscriptions[id] = status;
  }
  return { keys: obj.keys.map(parseStoredKey), subscriptions };
}

export class FileStore implements EntitlementStore {
  readonly backend = "file" as const;
  readonly file: string;
  private snapshot: Snapshot | undefined;
  /** Serialises this process's read-modify-write cycles. */
  private writing: Promise<unknown> = Promise.resolve();

  constructor(readonly stateDir: string) {
    this.file = path.join(stateDir, STATE_FILE_NAME);
  }

  private async currentSignature(): Promise<string> {
    try {
      const s = await stat(this.file, { bigint: true });
      return `${s.ino}:${s.mtimeNs}:${s.size}`;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return "missing";
      throw err;
    }
  }

  /** The current state: one stat per call, a full read only when the file changed. */
  private async load(): Promise<Snapshot> {
    const signature = await this.currentSignature();
    if (this.snapshot && this.snapshot.signature === signature) return this.snapshot;
    if (signature === "missing") {
      this.snapshot = index(emptyState(), signature);
      return this.snapshot;
    }
    let text: string;
    try {
      text = await readFile(this.file, "utf8");
    } catch (err) {
      // Replaced between stat and read: the next call sees the new file.
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return index(emptyState(), "missing");
      throw err;
    }
    // Stat again after reading: if it moved meanwhile, keep no cache so the next call re-reads.
    const after = await this.currentSignature();
    const snap = index(parseState(text, this.file), after === signature ? signature : "stale");
    this.snapshot = snap;
    return snap;
  }

  private mutate<T>(change: (state: State) => T): Promise<T> {
    const run = this.writing.then(async () => {
      const snap = await this.load();
      const next: State = structuredClone(snap.state);
      const result = change(next);
      await this.write(next);
      return result;
    });
    this.writing = run.catch(() => undefined);
    return run;
  }

  private async write(state: State): Promise<void> {
    await mkdir(this.stateDir, { recursive: true, mode: 0o700 });
    const tmp = path.join(this.stateDir, `.${STATE_FILE_NAME}.${process.pid}.${randomBase62(8)}.tmp`);
    const handle = await open(tmp, "wx", 0o600); // holds hashes and subscription ids: owner only
    try {
      await handle.writeFile(JSON.stringify(state, null, 2) + "\n", "utf8");
      await handle.sync(); // the rename must never publish a file whose bytes are not on disk
    } finally {
      await handle.close();
    }
    try {
      await rename(tmp, this.file);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    this.snapshot = index(state, await this.currentSignature());
  }

  async insertKey(key: StoredKey): Promise<void> {
    await this.mutate((state) => {
      if (state.keys.some((k) => k.id === key.id || k.hash === key.hash)) throw new Error("key id or hash already stored");
      state.keys.push({ ...key });
    });
  }

  async findKeyByHash(hash: string): Promise<StoredKey | undefined> {
    const k = (await this.load()).byHash.get(hash);
    return k && { ...k };
  }

  async getKey(id: string): Promise<StoredKey | undefined> {
    const k = (await this.load()).byId.get(id);
    return k && { ...k };
  }

  async listKeys(): Promise<StoredKey[]> {
    // Stable sort: keys issued in the same millisecond keep their issue order.
    return (await this.load()).state.keys.map((k) => ({ ...k })).sort((x, y) => x.createdAt.localeCompare(y.createdAt));
  }

  async revokeKey(id: string, at: string): Promise<StoredKey | undefined> {
    if (!(await this.getKey(id))) return undefined; // no write for an unknown id
    return this.mutate((state) => {
      const k = state.keys.find((x) => x.id === id);
      if (!k) return undefined;
      if (k.revokedAt === null) k.revokedAt = at;
      return { ...k };
    });
  }

  async getSubscription(id: string): Promise<LocalSubscriptionStatus | undefined> {
    const { subscriptions } = (await this.load()).state;
    return Object.hasOwn(subscriptions, id) ? subscriptions[id] : undefined;
  }

  async setSubscription(id: string, status: LocalSubscriptionStatus): Promise<void> {
    await this.mutate((state) => {
      state.subscriptions[id] = status;
    });
  }

  async ping(): Promise<void> {
    await this.load();
  }

  async close(): Promise<void> {
    await this.writing;
  }
}
