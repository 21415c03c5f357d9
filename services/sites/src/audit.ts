// The audit trail: every change to a site's records appends one event in the same transaction,
// hash-chained per site (sha256 of the previous hash followed by the event's canonical JSON), so
// a copy of the trail (an export's audit.json) shows any event changed, removed or reordered.
import { createHash } from "node:crypto";
import type { Transaction } from "kysely";
import type { AuditEventRow, SitesTables } from "./db/schema.js";

/** The first event's prev_hash. */
export const GENESIS_HASH = "0".repeat(64);

export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** JSON with object keys sorted at every depth: one text for one value, whichever wrote it. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object" && !(value instanceof Uint8Array)) {
    const o = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(o)
        .filter((k) => o[k] !== undefined)
        .sort()
        .map((k) => [k, sortKeys(o[k])]),
    );
  }
  return value;
}

/** The hash of an event: of its predecessor's hash and every other field of it. */
export function eventHash(e: Omit<AuditEventRow, "hash">): string {
  const { prev_hash, ...rest } = e;
  return sha256Hex(prev_hash + canonicalJson(rest));
}

export interface AuditEntry {
  action: string;
  subjectId: string;
  detail: Record<string, unknown>;
}

/** Appends one event to the site's chain inside `trx` (the caller holds the site's write lock). */
export async function appendAudit(trx: Transaction<SitesTables>, siteId: string, actor: string, at: string, entry: AuditEntry): Promise<AuditEventRow> {
  const last = await trx.selectFrom("audit_events").select(["seq", "hash"]).where("site_id", "=", siteId).orderBy("seq", "desc").limit(1).executeTakeFirst();
  const row = { site_id: siteId, seq: (last ? Number(last.seq) : 0) + 1, at, actor, action: entry.action, subject_id: entry.subjectId, detail_json: canonicalJson(entry.detail), prev_hash: last?.hash ?? GENESIS_HASH };
  const event = { ...row, hash: eventHash(row) };
  await trx.insertInto("audit_events").values(event).execute();
  return event;
}

export interface ChainCheck {
  intact: boolean;
  /** The seq of the first event that does not match (0 when intact). */
  firstBrokenSeq: number;
}

/** Checks a site's events, oldest first: numbering from 1, each linked to and hashed over its predecessor. */
export function verifyChain(events: readonly AuditEventRow[]): ChainCheck {
  let prev = GENESIS_HASH;
  for (let n = 0; n < events.length; n++) {
    const e = events[n]!;
    const { hash, ...rest } = e;
    if (Number(e.seq) !== n + 1 || e.prev_hash !== prev || eventHash({ ...rest, seq: Number(e.seq) }) !== hash) return { intact: false, firstBrokenSeq: n + 1 };
    prev = hash;
  }
  return { intact: true, firstBrokenSeq: 0 };
}
