// The one interface every counter store implements (memory, Redis, Redis with memory fallback).
// Stores hold no clock: the service reads its injected Clock once per call and passes `nowMs`
// down, so tests set time instead of sleeping and every window of a decision sees one instant.
import type { WindowCount, WindowPlan } from "./windows.js";

export interface DecideOutcome {
  /** All windows counted the request (or, for `peek`, a request of cost 1 would pass). */
  allowed: boolean;
  windows: WindowCount[];
  /** The shared store failed and a per-instance limiter answered. */
  degraded: boolean;
}

export interface StoredResponseData {
  status: number;
  body: Uint8Array;
  headers: Record<string, string>;
}

export type BeginOutcome =
  | { state: "claimed" }
  | { state: "replay"; response: StoredResponseData }
  | { state: "in_flight" }
  | { state: "mismatch" };

export interface IdempotencyTimes {
  /** How long a completed response is kept (24 h). */
  ttlMs: number;
  /** How long an uncompleted claim blocks the key, so a crashed request does not block it for a day. */
  claimTtlMs: number;
}

export const DEFAULT_IDEMPOTENCY_TIMES: IdempotencyTimes = { ttlMs: 24 * 3_600_000, claimTtlMs: 60_000 };

export interface RateLimitStore {
  /**
   * One atomic decision: every window counts `cost`, or none does (a refused request consumes
   * nothing). `subject` identifies the bucket (policy and caller); `windows` come from planWindows.
   */
  decide(subject: string, windows: WindowPlan[], cost: number, nowMs: number): Promise<DecideOutcome>;
  /** The same counts without spending anything. */
  peek(subject: string, windows: WindowPlan[], nowMs: number): Promise<DecideOutcome>;
  /**
   * Takes `cost` back out of fixed calendar `windows` (never below zero): the quota units of an
   * admitted request that went unanswered. Sliding windows are not refundable and are skipped.
   */
  refund(subject: string, windows: WindowPlan[], cost: number, nowMs: number): Promise<void>;

  /** Claims `(scope, key)` for `fingerprint`, or says why not. */
  beginIdempotent(scope: string, key: string, fingerprint: string, nowMs: number): Promise<BeginOutcome>;
  /** Stores the response for a claim; keeps the first stored response if one exists. */
  completeIdempotent(scope: string, key: string, fingerprint: string, response: StoredResponseData, nowMs: number): Promise<void>;
  /** Drops an uncompleted claim so the caller may retry; a completed record stays. */
  releaseIdempotent(scope: string, key: string, nowMs: number): Promise<void>;

  close(): Promise<void>;
}

/** The subset of pino the stores use; pino loggers satisfy it. */
export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };

/** The idempotency record as stored (JSON in Redis, an object in memory). */
export interface IdempotencyRecord {
  st: "claimed" | "done";
  fp: string;
  /** Expiry in the injected clock's time, so tests can expire records without waiting. */
  exp: number;
  /** Completed: status, base64 body, headers. */
  res?: { s: number; b: string; h: Record<string, string> };
}

export function encodeResponse(r: StoredResponseData): NonNullable<IdempotencyRecord["res"]> {
  return { s: r.status, b: Buffer.from(r.body).toString("base64"), h: { ...r.headers } };
}

export function decodeResponse(r: NonNullable<IdempotencyRecord["res"]>): StoredResponseData {
  return { status: r.s, body: new Uint8Array(Buffer.from(r.b, "base64")), headers: { ...r.h } };
}

/** Begin's decision given the live (unexpired) record, if any; shared so both stores agree. */
export function beginFrom(rec: IdempotencyRecord | undefined, fingerprint: string): BeginOutcome | undefined {
  if (!rec) return undefined;
  if (rec.fp !== fingerprint) return { state: "mismatch" };
  if (rec.st === "done" && rec.res) return { state: "replay", response: decodeResponse(rec.res) };
  return { state: "in_flight" };
}

/** One idempotency record's id: the length prefix keeps `(a:b, c)` and `(a, b:c)` apart. */
export function idemId(scope: string, key: string): string {
  return `${scope.length}:${scope}:${key}`;
}
