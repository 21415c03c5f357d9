// Per-process store: the embedded default, and the fallback when Redis fails. JavaScript runs
// one decision to completion before the next, so check-then-commit is atomic without locks.
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

interface Counter {
  count: number;
  expiresAt: number;
}

/** Sweep expired entries every this many operations, so idle buckets do not pile up. */
const SWEEP_EVERY = 1000;

export class MemoryStore implements RateLimitStore {
  /** Sliding logs: ascending timestamps, one per admitted unit. */
  private readonly logs = new Map<string, number[]>();
  private readonly counters = new Map<string, Counter>();
  private readonly idem = new Map<string, IdempotencyRecord>();
  private ops = 0;

  constructor(private readonly times: IdempotencyTimes = DEFAULT_IDEMPOTENCY_TIMES) {}

  async decide(subject: string, windows: WindowPlan[], cost: number, nowMs: number): Promise<DecideOutcome> {
    return this.evaluateNow(subject, windows, cost, nowMs, true);
  }

  async peek(subject: string, windows: WindowPlan[], nowMs: number): Promise<DecideOutcome> {
    return this.evaluateNow(subject, windows, 1, nowMs, false);
  }

  async refund(subject: string, windows: WindowPlan[], cost: number, nowMs: number): Promise<void> {
    for (const w of windows) {
      if (w.sliding) continue;
      const id = `${subject}:${w.key}`;
      const c = this.counters.get(id);
      if (!c || c.expiresAt <= nowMs) continue;
      c.count = Math.max(0, c.count - cost);
    }
  }

  /**
   * The decision itself, synchronously: checks every window and, when `commit` and all pass,
   * counts the request in each. The LMDB store runs it for the sliding windows inside its write
   * transaction, so the in-memory and on-disk halves of one decision stay atomic.
   */
  evaluateNow(subject: string, windows: WindowPlan[], cost: number, nowMs: number, commit: boolean): DecideOutcome {
    this.maybeSweep(nowMs);
    // Phase 1: check every window without touching any.
    const counts: WindowCount[] = windows.map((w) => {
      const id = `${subject}:${w.key}`;
      if (w.sliding) {
        const log = this.prunedLog(id, w.spanMs, nowMs);
        const used = log.length;
        let retryAtMs = 0;
        if (used + cost > w.limit) {
          // The request fits once enough of the oldest entries have left the span.
          const idx = used + cost - w.limit - 1;
          retryAtMs = idx < used ? log[idx] + w.spanMs : nowMs + w.spanMs;
        }
        return { used, resetAtMs: used > 0 ? log[0] + w.spanMs : nowMs + w.spanMs, retryAtMs };
      }
      const c = this.counters.get(id);
      const used = c && c.expiresAt > nowMs ? c.count : 0;
      return { used, resetAtMs: w.endMs, retryAtMs: used + cost > w.limit ? w.endMs : 0 };
    });
    const allowed = counts.every((c) => c.retryAtMs === 0);
    if (!allowed || !commit) return { allowed, windows: counts, degraded: false };

    // Phase 2: every window passed, so every window counts the request.
    windows.forEach((w, i) => {
      const id = `${subject}:${w.key}`;
      if (w.sliding) {
        const log = this.logs.get(id) ?? [];
        for (let k = 0; k < cost; k++) insertSorted(log, nowMs);
        this.logs.set(id, log);
        counts[i] = { used: log.length, resetAtMs: log[0] + w.spanMs, retryAtMs: 0 };
      } else {
        const c = this.counters.get(id);
        const next = c && c.expiresAt > nowMs ? c.count + cost : cost;
        this.counters.set(id, { count: next, expiresAt: w.endMs });
        counts[i] = { used: next, resetAtMs: w.endMs, retryAtMs: 0 };
      }
    });
    return { allowed, windows: counts, degraded: false };
  }

  private prunedLog(id: string, spanMs: number, nowMs: number): number[] {
    const log = this.logs.get(id);
    if (!log) return [];
    // An entry at t counts while t > now - span; it leaves the span at t + span.
    let drop = 0;
    while (drop < log.length && log[drop] <= nowMs - spanMs) drop++;
    if (drop > 0) log.splice(0, drop);
    if (log.length === 0) this.logs.delete(id);
    return log;
  }

  async beginIdempotent(scope: string, key: string, fingerprint: string, nowMs: number): Promise<BeginOutcome> {
    this.maybeSweep(nowMs);
    const id = idemId(scope, key);
    const found = beginFrom(this.liveRecord(id, nowMs), fingerprint);
    if (found) return found;
    this.idem.set(id, { st: "claimed", fp: fingerprint, exp: nowMs + this.times.claimTtlMs });
    return { state: "claimed" };
  }

  async completeIdempotent(scope: string, key: string, fingerprint: string, response: StoredResponseData, nowMs: number): Promise<void> {
    const id = idemId(scope, key);
    const rec = this.liveRecord(id, nowMs);
    // Never overwrite another request's claim, nor the first stored response.
    if (rec && (rec.fp !== fingerprint || rec.st === "done")) return;
    this.idem.set(id, { st: "done", fp: fingerprint, exp: nowMs + this.times.ttlMs, res: encodeResponse(response) });
  }

  async releaseIdempotent(scope: string, key: string, nowMs: number): Promise<void> {
    const id = idemId(scope, key);
    if (this.liveRecord(id, nowMs)?.st === "claimed") this.idem.delete(id);
  }

  async close(): Promise<void> {}

  private liveRecord(id: string, nowMs: number): IdempotencyRecord | undefined {
    const rec = this.idem.get(id);
    if (rec && rec.exp <= nowMs) {
      this.idem.delete(id);
      return undefined;
    }
    return rec;
  }

  private maybeSweep(nowMs: number): void {
    if (++this.ops % SWEEP_EVERY !== 0) return;
    for (const [id, c] of this.counters) if (c.expiresAt <= nowMs) this.counters.delete(id);
    for (const [id, r] of this.idem) if (r.exp <= nowMs) this.idem.delete(id);
    // Logs are only ever pruned by their own span; 1 h covers every sliding span we define.
    for (const [id, log] of this.logs) if (log.length === 0 || log[log.length - 1] <= nowMs - 3_600_000) this.logs.delete(id);
  }
}

/** Appends in order; the clock may step back a little (NTP), so keep the log sorted. */
function insertSorted(log: number[], t: number): void {
  let i = log.length;
  while (i > 0 && log[i - 1] > t) i--;
  log.splice(i, 0, t);
}
