// Embedded backend: an LMDB environment in STATE_DIR that several processes (the server and the
// key CLI) open at once. Every read-modify-write is one LMDB write transaction, so a key issued
// by the CLI while the server writes is never lost, and a crash (even kill -9) leaves the last
// committed state readable: LMDB never overwrites committed pages in place.
import { openLmdb, type Database, type RootDatabase } from "@permits/state";
import { migrateLegacyStateFile } from "./legacy-state-file.js";
import { LmdbCheckoutStore } from "./lmdb-checkout-store.js";
import type { CheckoutStore } from "./checkout-store.js";
import { parseStoredKey, type EntitlementStore, type LocalSubscriptionStatus, type StoredKey } from "./store.js";

export const ENTITLEMENT_DB_FILE = "entitlement.mdb";

export class LmdbStore implements EntitlementStore {
  readonly backend = "lmdb" as const;
  private constructor(
    private readonly root: RootDatabase,
    /** id -> StoredKey */
    private readonly keys: Database<StoredKey, string>,
    /** SHA-256 hex -> id */
    private readonly hashes: Database<string, string>,
    /** subscription id -> status */
    private readonly subscriptions: Database<LocalSubscriptionStatus, string>,
  ) {}

  /** Opens (creating if needed) the store in `stateDir` and imports a pre-LMDB `entitlement.json` once. */
  static async open(stateDir: string): Promise<LmdbStore> {
    const root = await openLmdb(stateDir, ENTITLEMENT_DB_FILE, { maxDbs: 8 });
    const store = new LmdbStore(
      root,
      root.openDB<StoredKey, string>({ name: "keys" }),
      root.openDB<string, string>({ name: "key-hashes" }),
      root.openDB<LocalSubscriptionStatus, string>({ name: "subscriptions" }),
    );
    try {
      await migrateLegacyStateFile(stateDir, (state) =>
        store.root.transaction(() => {
          for (const k of state.keys) if (store.keys.get(k.id) === undefined && store.hashes.get(k.hash) === undefined) store.putKey(k);
          for (const [id, status] of Object.entries(state.subscriptions)) if (store.subscriptions.get(id) === undefined) store.subscriptions.put(id, status);
        }),
      );
    } catch (err) {
      await root.close();
      throw err;
    }
    return store;
  }

  private putKey(key: StoredKey): void {
    this.keys.put(key.id, { ...key });
    this.hashes.put(key.hash, key.id);
  }

  /**
   * lmdb-js reuses one read snapshot for a while; start from the newest commit so a key the CLI
   * issued or revoked a moment ago counts on the very next call (microseconds, no I/O).
   */
  private fresh(): void {
    this.root.resetReadTxn();
  }

  private readKey(id: string): StoredKey | undefined {
    const v = this.keys.get(id);
    return v === undefined ? undefined : parseStoredKey(v);
  }

  async insertKey(key: StoredKey): Promise<void> {
    const inserted = await this.root.transaction(() => {
      if (this.keys.get(key.id) !== undefined || this.hashes.get(key.hash) !== undefined) return false;
      this.putKey(key);
      return true;
    });
    if (!inserted) throw new Error("key id or hash already stored");
  }

  async findKeyByHash(hash: string): Promise<StoredKey | undefined> {
    this.fresh();
    const id = this.hashes.get(hash);
    return id === undefined ? undefined : this.readKey(id);
  }

  async getKey(id: string): Promise<StoredKey | undefined> {
    this.fresh();
    return this.readKey(id);
  }

  async listKeys(): Promise<StoredKey[]> {
    this.fresh();
    // Stable sort: keys issued in the same millisecond keep their id order.
    return [...this.keys.getRange()].map(({ value }) => parseStoredKey(value)).sort((x, y) => x.createdAt.localeCompare(y.createdAt));
  }

  async revokeKey(id: string, at: string): Promise<StoredKey | undefined> {
    this.fresh();
    if (!this.keys.get(id)) return undefined; // no write for an unknown id (nor one the CLI just issued)
    return this.root.transaction(() => {
      const k = this.readKey(id);
      if (!k) return undefined;
      if (k.revokedAt === null) {
        k.revokedAt = at;
        this.keys.put(id, k);
      }
      return { ...k };
    });
  }

  async getSubscription(id: string): Promise<LocalSubscriptionStatus | undefined> {
    this.fresh();
    return this.subscriptions.get(id);
  }

  async setSubscription(id: string, status: LocalSubscriptionStatus): Promise<void> {
    await this.subscriptions.put(id, status);
  }

  private checkoutStore?: CheckoutStore;

  /** Checkout's records, in the same environment, so a fulfilment and its keys commit together. */
  checkout(): CheckoutStore {
    return (this.checkoutStore ??= new LmdbCheckoutStore(this.root, this.root.openDB<unknown, string>({ name: "checkout" }), this.keys, this.hashes));
  }

  async ping(): Promise<void> {
    this.keys.getKeysCount({ limit: 1 });
  }

  async close(): Promise<void> {
    await this.root.close();
  }
}
