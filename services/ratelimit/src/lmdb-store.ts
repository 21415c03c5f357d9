// Embedded persistent store. What a customer pays for is counted durably before the answer leaves,
// and every process on one STATE_DIR decides against the same count (issue 31):
// - Fixed calendar counters (the monthly quota; the keyless tiers' hour and day) live only in
//   LMDB. A decision reads the stored count, compares it with the limit and writes the new count
//   inside ONE write transaction, and `decide` resolves only once that transaction has committed.
//   LMDB's writer lock is shared between processes, so two gateways on one STATE_DIR take turns
//   on the same count; a kill -9 loses no count whose answer could have left.
// - lmdb-js runs every transaction callback queued in one event turn in one commit, so a burst
//   of concurrent requests costs one commit (and one sync), not one per request.
// - The sliding per-minute burst limit stays in this process's memory: it protects capacity, it
//   is not billed, and a restart forgets it. Two processes on one STATE_DIR each enforce it on
//   their own (up to twice the burst across both), which docs/deployment.md records. It is checked and
//   counted inside the same transaction callback, so a decision is still all or nothing.
// Idempotency records live in LMDB too, each read-modify-write one transaction.
import { openLmdb, type Database, type RootDatabase } from "@permits/state";
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
import type { WindowCount, WindowPlan } from "./windows.js";

export const RATELIMIT_DB_FILE = "ratelimit.mdb";
/** Expired counters and idempotency records are deleted this often. */
const SWEEP_MS = 60_000;

interface StoredCounter {
  c: number;
  /** The window's end; a stored count belongs to the window that ends then. */
  e: number;
}

export interface LmdbStoreOptions {
  times?: IdempotencyTimes;
  /**
   * Unit tests of the counting rules only: commit without syncing to disk. A killed process still
   * keeps every commit (the pages are in the OS cache), a power loss may not; `npm start` syncs.
   */
  noSync?: boolean;
}

export class LmdbStore implements RateLimitStore {
  /** The sliding minute logs only; fixed counters are never held here. */
  private readonly memory: MemoryStore;
  private readonly timer: NodeJS.Timeout;
  /** The newest instant a caller passed in: the sweep's "now" (stores hold no clock). */
  private lastNowMs = 0;

  private constructor(
    private readonly root: RootDatabase,
    private readonly counters: Database<StoredCounter, string>,
    private readonly idempotency: Database<IdempotencyRecord, string>,
    private readonly times: IdempotencyTimes,
  ) {
    this.memory = new MemoryStore(times);
    this.timer = setInterval(() => void this.sweep().catch(() => undefined), SWEEP_MS);
    this.timer.unref();
  }

  static async open(stateDir: string, options: LmdbStoreOptions = {}): Promise<LmdbStore> {
    const root = await openLmdb(stateDir, RATELIMIT_DB_FILE, { maxDbs: 4, noSync: options.noSync });
    return new LmdbStore(
      root,
      root.openDB<StoredCounter, string>({ name: "counters" }),
      root.openDB<IdempotencyRecord, string>({ name: "idempotency" }),
      options.times ?? DEFAULT_IDEMPOTENCY_TIMES,
    );
  }

  private see(nowMs: number): void {
    if (nowMs > this.lastNowMs) this.lastNowMs = nowMs;
  }

  /** Resolves once the count is committed (visible to every process, and kept through a kill -9). */
  decide(subject: string, windows: WindowPlan[], cost: number, nowMs: number): Promise<DecideOutcome> {
    this.see(nowMs);
    return this.root.transaction(() => this.evaluate(subject, windows, cost, nowMs, true));
  }

  /** Reads the latest committed counts (another process's included) without spending anything. */
  async peek(subject: string, windows: WindowPlan[], nowMs: number): Promise<DecideOutcome> {
    this.root.resetReadTxn();
    return this.evaluate(subject, windows, 1, nowMs, false);
  }

  async refund(subject: string, windows: WindowPlan[], cost: number, nowMs: number): Promise<void> {
    await this.root.transaction(() => {
      for (const w of windows) {
        if (w.sliding) continue;
        const id = `${subject}:${w.key}`;
        const used = this.stored(id, nowMs);
        if (used > 0) this.counters.put(id, { c: Math.max(0, used - cost), e: w.endMs });
      }
    });
  }

  /** The count in a fixed window as committed (inside a write transaction: the latest of all processes). */
  private stored(id: string, nowMs: number): number {
    const s = this.counters.get(id);
    return s && s.e > nowMs ? s.c : 0;
  }

  /**
   * One decision, synchronous so it runs whole inside a transaction callback: every window is
   * checked first, and only if all pass does each count the request (a refusal consumes nothing).
   */
  private evaluate(subject: string, windows: WindowPlan[], cost: number, nowMs: number, commit: boolean): DecideOutcome {
    const sliding = windows.filter((w) => w.sliding);
    const burst = sliding.length > 0 ? this.memory.evaluateNow(subject, sliding, cost, nowMs, false).windows : [];
    let s = 0;
    const counts: WindowCount[] = windows.map((w) => {
      if (w.sliding) return burst[s++];
      const used = this.stored(`${subject}:${w.key}`, nowMs);
      return { used, resetAtMs: w.endMs, retryAtMs: used + cost > w.limit ? w.endMs : 0 };
    });
    const allowed = counts.every((c) => c.retryAtMs === 0);
    if (!allowed || !commit) return { allowed, windows: counts, degraded: false };

    const counted = sliding.length > 0 ? this.memory.evaluateNow(subject, sliding, cost, nowMs, true).windows : [];
    s = 0;
    windows.forEach((w, i) => {
      if (w.sliding) {
        counts[i] = counted[s++];
        return;
      }
      const used = counts[i].used + cost;
      this.counters.put(`${subject}:${w.key}`, { c: used, e: w.endMs });
      counts[i] = { used, resetAtMs: w.endMs, retryAtMs: 0 };
    });
    return { allowed, windows: counts, degraded: false };
  }

  /** Deletes expired counters and idempotency records in one transaction. */
  private async sweep(): Promise<void> {
    const now = this.lastNowMs;
    if (now === 0) return;
    await this.root.transaction(() => {
      for (const { key, value } of this.counters.getRange()) if (value.e <= now) this.counters.remove(key);
      for (const { key, value } of this.idempotency.getRange()) if (value.exp <= now) this.idempotency.remove(key);
    });
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
    await this.root.flushed;
    await this.root.close();
  }
}
