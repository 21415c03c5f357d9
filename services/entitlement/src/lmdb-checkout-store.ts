// Checkout's records in the embedded LMDB store: one named database, keys prefixed by kind.
// Every read-modify-write is one LMDB write transaction, atomic across processes.
//   f:<session>     Fulfilment          s:<session>   sealed plaintexts (until shown)
//   shown:<session> when shown          sub:<subscription> session ids
//   k:<key id>      its session id
//   ls:<session>    LocalSession        lsub:<session> its subscription id, once confirmed
import type { Database, RootDatabase } from "@permits/state";
import { parseFulfilment, parseLocalSession, type CheckoutStore, type Fulfilment, type LocalSession, type TakeSealed } from "./checkout-store.js";
import type { StoredKey } from "./stored-key.js";

export class LmdbCheckoutStore implements CheckoutStore {
  constructor(
    private readonly root: RootDatabase,
    private readonly db: Database<unknown, string>,
    private readonly keys: Database<StoredKey, string>,
    private readonly hashes: Database<string, string>,
  ) {}

  async claimFulfilment(f: Fulfilment, keys: StoredKey[], sealed: string): Promise<{ claimed: boolean; fulfilment: Fulfilment }> {
    const existing = await this.root.transaction(() => {
      const there = this.db.get(`f:${f.sessionId}`);
      if (there !== undefined) return there;
      for (const k of keys) {
        if (this.keys.get(k.id) !== undefined || this.hashes.get(k.hash) !== undefined) throw new Error("key id or hash already stored");
      }
      for (const k of keys) {
        this.keys.put(k.id, { ...k });
        this.hashes.put(k.hash, k.id);
        this.db.put(`k:${k.id}`, f.sessionId);
      }
      this.db.put(`f:${f.sessionId}`, { ...f });
      this.db.put(`s:${f.sessionId}`, sealed);
      const subKey = `sub:${f.subscriptionId}`;
      const sessions = (this.db.get(subKey) as string[] | undefined) ?? [];
      this.db.put(subKey, [...sessions, f.sessionId]);
      return undefined;
    });
    return existing === undefined ? { claimed: true, fulfilment: f } : { claimed: false, fulfilment: parseFulfilment(existing) };
  }

  async getFulfilment(sessionId: string): Promise<Fulfilment | undefined> {
    this.root.resetReadTxn();
    const v = this.db.get(`f:${sessionId}`);
    return v === undefined ? undefined : parseFulfilment(v);
  }

  async takeSealed(sessionId: string, at: string): Promise<TakeSealed> {
    return this.root.transaction((): TakeSealed => {
      const sealed = this.db.get(`s:${sessionId}`);
      if (typeof sealed === "string") {
        this.db.remove(`s:${sessionId}`);
        this.db.put(`shown:${sessionId}`, at);
        return { taken: sealed };
      }
      const shownAt = this.db.get(`shown:${sessionId}`);
      return typeof shownAt === "string" ? { shownAt } : { missing: true };
    });
  }

  async fulfilmentOfKey(keyId: string): Promise<Fulfilment | undefined> {
    this.root.resetReadTxn();
    const session = this.db.get(`k:${keyId}`);
    return typeof session === "string" ? parseFulfilment(this.db.get(`f:${session}`)) : undefined;
  }

  async fulfilmentsOf(subscriptionId: string): Promise<Fulfilment[]> {
    this.root.resetReadTxn();
    const sessions = (this.db.get(`sub:${subscriptionId}`) as string[] | undefined) ?? [];
    return sessions.map((s) => parseFulfilment(this.db.get(`f:${s}`)));
  }

  async putLocalSession(s: LocalSession): Promise<void> {
    await this.db.put(`ls:${s.id}`, { ...s });
  }

  async getLocalSession(id: string): Promise<LocalSession | undefined> {
    this.root.resetReadTxn();
    const v = this.db.get(`ls:${id}`);
    return v === undefined ? undefined : parseLocalSession(v);
  }

  async claimLocalSubscription(sessionId: string, subscriptionId: string): Promise<string> {
    return this.root.transaction(() => {
      const there = this.db.get(`lsub:${sessionId}`);
      if (typeof there === "string") return there;
      this.db.put(`lsub:${sessionId}`, subscriptionId);
      return subscriptionId;
    });
  }

  async localSubscriptionOf(sessionId: string): Promise<string | undefined> {
    this.root.resetReadTxn();
    const v = this.db.get(`lsub:${sessionId}`);
    return typeof v === "string" ? v : undefined;
  }
}
