// Embedded persistent store: decisions run in memory (as fast as the memory store), fixed-window
// counters (the monthly quota, the keyless tiers' hour and day) are written behind to an LMDB
// environment in STATE_DIR once per flush interval, and idempotency records live in LMDB itself,
// each read-modify-write one transaction. A restart therefore keeps every count but those of the
// last interval before a crash (docs/deployment.md says so); sliding minute windows stay in memory.
//
// Flushes add each counter's change since the last flush inside one transaction, so two processes
// sharing a STATE_DIR never overwrite each other's counts (each enforces its own view meanwhile).
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { open, type Database, type RootDatabase } from "lmdb";
import { MemoryStore } from "./memory-store.js";
import {
  DEFAULT_IDEMPOTENCY_TIMES,
  beginFrom,
  encodeResponse,
  idemId,
  type BeginOutcome,
  type DecideOutcome,
  type IdempotencyRecord,
  type IdempotencyTimes,
  type RateLimitStore,
  type StoredResponseData,
} from "./store.js";
import type { WindowPlan } from "./windows.js";

export const RATELIMIT_DB_FILE = "ratelimit.mdb";
export const DEFAULT_FLUSH_MS = 1000;
/** Expired counters and idempotency records are deleted every this many flushes. */
const SWEEP_EVERY_FLUSHES = 60;

interface StoredCounter {
  c: number;
  /** The window's end; a stored count belongs to the window that ends then. */
  e: number;
}

export interface LmdbStoreOptions {
  flushMs?: number;
  times?: IdempotencyTimes;
}

export class LmdbStore implements RateLimitStore {
  private readonly memory: MemoryStore;
  /** Counter changes not yet written: id -> change within the window ending at `e`. */
  private pending = new Map<string, StoredCounter>();
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();
  private flushes = 0;
  /** The newest instant a caller passed in: the sweep's "now" (stores hold no clock). */
  private lastNowMs = 0;

  private constructor(
    private readonly root: RootDatabase,
    private readonly counters: Database<StoredCounter, string>,
    private readonly idempotency: Database<IdempotencyRecord, string>,
    private readonly times: IdempotencyTimes,
    flushMs: number,
  ) {
    this.memory = new MemoryStore(times, (id, delta, expiresAt) => this.noteChange(id, delta, expiresAt));
    for (const { key, value } of counters.getRange()) this.memory.seedCounter(key, value.c, value.e);
    this.timer = setInterval(() => void this.flush(), flushMs);
    this.timer.unref();
  }

  static async open(stateDir: string, options: LmdbStoreOptions = {}): Promise<LmdbStore> {
    await mkdir(stateDir, { recursive: true, mode: 0o700 });
    const root = open({ path: path.join(stateDir, RATELIMIT_DB_FILE), maxDbs: 4 });
    return new LmdbStore(
      root,
      root.openDB<StoredCounter, string>({ name: "counters" }),
      root.openDB<IdempotencyRecord, string>({ name: "idempotency" }),
      options.times ?? DEFAULT_IDEMPOTENCY_TIMES,
      options.flushMs ?? DEFAULT_FLUSH_MS,
    );
  }

  private noteChange(id: string, delta: number, expiresAt: number): void {
    const p = this.pending.get(id);
    // A change in a newer window replaces the old window's (which has ended anyway).
    this.pending.set(id, p && p.e === expiresAt ? { c: p.c + delta, e: expiresAt } : { c: delta, e: expiresAt });
  }

  private see(nowMs: number): void {
    if (nowMs > this.lastNowMs) this.lastNowMs = nowMs;
  }

  decide(subject: string, windows: WindowPlan[], cost: number, nowMs: number): Promise<DecideOutcome> {
    this.see(nowMs);
    return this.memory.decide(subject, windows, cost, nowMs);
  }

  peek(subject: string, windows: WindowPlan[], nowMs: number): Promise<DecideOutcome> {
    return this.memory.peek(subject, windows, nowMs);
  }

  refund(subject: string, windows: WindowPlan[], cost: number, nowMs: number): Promise<void> {
    return this.memory.refund(subject, windows, cost, nowMs);
  }

  /** Writes the counter changes gathered since the last flush in one transaction. */
  flush(): Promise<void> {
    const run = this.flushing.then(async () => {
      const sweep = ++this.flushes % SWEEP_EVERY_FLUSHES === 0;
      if (this.pending.size === 0 && !sweep) return;
      const batch = this.pending;
      this.pending = new Map();
      const now = this.lastNowMs;
      await this.root.transaction(() => {
        for (const [id, change] of batch) {
          const stored = this.counters.get(id);
          const base = stored && stored.e === change.e ? stored.c : 0;
          this.counters.put(id, { c: Math.max(0, base + change.c), e: change.e });
        }
        if (sweep) this.sweep(now);
      });
    });
    this.flushing = run.catch(() => undefined);
    return run;
  }

  private sweep(nowMs: number): void {
    for (const { key, value } of this.counters.getRange()) if (value.e <= nowMs) this.counters.remove(key);
    for (const { key, value } of this.idempotency.getRange()) if (value.exp <= nowMs) this.idempotency.remove(key);
  }

  /** The unexpired record, read inside the caller's transaction. */
  private live(id: string, nowMs: number): IdempotencyRecord | undefined {
    const rec = this.idempotency.get(id);
    return rec && rec.exp > nowMs ? rec : undefined;
  }

  beginIdempotent(scope: string, key: string, fingerprint: string, nowMs: number): Promise<BeginOutcome> {
    this.see(nowMs);
    const id = idemId(scope, key);
    return this.root.transaction(() => {
      const found = beginFrom(this.live(id, nowMs), fingerprint);
      if (found) return found;
      this.idempotency.put(id, { st: "claimed", fp: fingerprint, exp: nowMs + this.times.claimTtlMs });
      return { state: "claimed" } as const;
    });
  }

  async completeIdempotent(scope: string, key: string, fingerprint: string, response: StoredResponseData, nowMs: number): Promise<void> {
    const id = idemId(scope, key);
    await this.root.transaction(() => {
      const rec = this.live(id, nowMs);
      // Never overwrite another request's claim, nor the first stored response.
      if (rec && (rec.fp !== fingerprint || rec.st === "done")) return;
      this.idempotency.put(id, { st: "done", fp: fingerprint, exp: nowMs + this.times.ttlMs, res: encodeResponse(response) });
    });
  }

  async releaseIdempotent(scope: string, key: string, nowMs: number): Promise<void> {
    const id = idemId(scope, key);
    await this.root.transaction(() => {
      if (this.live(id, nowMs)?.st === "claimed") this.idempotency.remove(id);
    });
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
    await this.root.close();
  }
}
