// Decoding answers whose large parts recur. A service's answers repeat the same parts again and
// again (a permit's requirements, a district's conditions: the dataset's own frozen messages,
// encoded anew for every answer). Decoded by fromBinary, each copy is new objects and strings,
// and the gateway then writes each as JSON again; in process (the embedded deployment) the same
// part is one frozen object whose JSON public-json.ts writes once per process.
//
// This decoder gives the wire the same property: a message-typed field whose bytes were seen
// before is answered with one frozen, shared decoded message, so both its decoding and its JSON
// are done once. What is shared is decided by the bytes alone, compared in full, so the result is
// always what fromBinary would give for them (frozen). Parts are admitted on their second
// sighting, so answers' one-off parts (numbers of one request) never fill the cache.
import { fromBinary, type DescField, type DescMessage, type Message } from "@bufbuild/protobuf";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";

/** Smaller parts decode about as fast as they are looked up. */
export const MIN_SHARED_BYTES = 128;
/** Bytes held by the cache and by the first sightings; each starts over when full. */
const MAX_PART_BYTES = 4 * 1024 * 1024;
const MAX_SIGHTING_BYTES = 2 * 1024 * 1024;

type MessageField = DescField & { fieldKind: "message" | "list"; message: DescMessage };

/**
 * What taking a field's parts apart has paid so far. A field whose parts never recur (a batch
 * item's candidates) and hold nothing that does is left to fromBinary: looking its parts up costs
 * more than decoding them (README.md, Measurements). Every PROBE_EVERY-th part is tried again, as traffic changes.
 */
interface FieldRecord {
  parts: number;
  lookups: number;
  hits: number;
  descents: number;
  fruitful: number;
}
const TRIAL = 64;
const PROBE_EVERY = 512;
/** Below 1 in 20, a field's lookups (or descents) are not worth their cost. */
const pays = (n: number, of: number, probe: boolean) => of < TRIAL || n * 20 >= of || probe;

interface Part {
  bytes: Uint8Array;
  message: Message;
}

/** A decoder for messages of any type, with its own cache of shared parts. */
export function sharedPartsDecoder(): <D extends DescMessage>(desc: D, bytes: Uint8Array) => ReturnType<typeof fromBinary<D>> {
  let parts = new Map<string, Part[]>();
  let partBytes = 0;
  // First sightings by key, with their bytes: a part is admitted when the same bytes come again
  // (keys of one-off parts of the same shape collide, and must not be admitted).
  let sighted = new Map<string, Uint8Array>();
  let sightedBytes = 0;
  const fieldsOf = new WeakMap<DescMessage, Map<number, MessageField>>();
  const records = new WeakMap<DescField, FieldRecord>();
  /** Parts found shared so far (a descent that raises it found something below). */
  let hitCount = 0;

  function recordOf(field: DescField): FieldRecord {
    let r = records.get(field);
    if (r === undefined) records.set(field, (r = { parts: 0, lookups: 0, hits: 0, descents: 0, fruitful: 0 }));
    return r;
  }

  /** The message fields (singular or repeated, never in a oneof or map) by number. */
  function messageFields(desc: DescMessage): Map<number, MessageField> {
    let m = fieldsOf.get(desc);
    if (m === undefined) {
      m = new Map();
      for (const f of desc.fields) {
        if (f.oneof !== undefined) continue;
        if ((f.fieldKind === "message" && !f.delimitedEncoding) || (f.fieldKind === "list" && f.listKind === "message" && !f.delimitedEncoding)) m.set(f.number, f as MessageField);
      }
      fieldsOf.set(desc, m);
    }
    return m;
  }

  /** The shared part with exactly these bytes, if there is one. */
  function lookUp(key: string, bytes: Uint8Array): Part | undefined {
    const bucket = parts.get(key);
    if (bucket !== undefined) for (const p of bucket) if (equalBytes(p.bytes, bytes)) return p;
    return undefined;
  }

  function remember(key: string, bytes: Uint8Array, message: Message): void {
    if (partBytes + bytes.length > MAX_PART_BYTES) {
      parts = new Map();
      partBytes = 0;
    }
    const bucket = parts.get(key) ?? [];
    if (bucket.length >= 4) return;
    if (bucket.length === 0) parts.set(key, bucket);
    bucket.push({ bytes, message: deepFreeze(message) });
    partBytes += bytes.length;
  }

  /** A large part of `field`: shared if its bytes were seen before, else decoded (and taken apart, where that pays). */
  function decodePart(field: MessageField, bytes: Uint8Array): Message {
    const r = recordOf(field);
    const probe = r.parts++ % PROBE_EVERY === 0;
    const lookup = pays(r.hits, r.lookups, probe);
    const key = lookup ? keyOf(bytes) : "";
    if (lookup) {
      r.lookups++;
      const hit = lookUp(key, bytes);
      if (hit !== undefined) {
        r.hits++;
        hitCount++;
        return hit.message;
      }
    }
    let message: Message;
    if (pays(r.fruitful, r.descents, probe)) {
      const before = hitCount;
      message = decode(field.message, bytes);
      r.descents++;
      if (hitCount > before) r.fruitful++;
    } else message = fromBinary(field.message, bytes);
    if (lookup) sight(key, bytes, message);
    return message;
  }

  /** A first sighting is kept; a second of the same bytes admits the part. */
  function sight(key: string, bytes: Uint8Array, message: Message): void {
    const before = sighted.get(key);
    if (before !== undefined && equalBytes(before, bytes)) {
      remember(key, before, message);
      sighted.delete(key);
    } else {
      if (sightedBytes + bytes.length > MAX_SIGHTING_BYTES) {
        sighted = new Map();
        sightedBytes = 0;
      }
      sighted.set(key, bytes.slice());
      sightedBytes += bytes.length;
    }
  }

  function decode(desc: DescMessage, bytes: Uint8Array): Message {
    const fields = messageFields(desc);
    if (fields.size === 0 || bytes.length < MIN_SHARED_BYTES) return fromBinary(desc, bytes);
    // One pass over the top level: which message fields hold a large part, and where.
    const taken = new Map<MessageField, Uint8Array[]>();
    // Decided once per message: a repeated field's elements are all taken or all left in place.
    const decided = new Map<MessageField, boolean>();
    const decidedToTake = (field: MessageField) => {
      let take = decided.get(field);
      if (take === undefined) decided.set(field, (take = worthTaking(field)));
      return take;
    };
    const rest: [number, number][] = [];
    const reader = new BinaryReader(bytes);
    let restFrom = 0;
    let large = false;
    while (reader.pos < reader.len) {
      const start = reader.pos;
      const [no, wire] = reader.tag();
      const field = fields.get(no);
      if (field === undefined || wire !== WireType.LengthDelimited || !decidedToTake(field)) {
        reader.skip(wire, no);
        continue;
      }
      const sub = reader.bytes();
      // A singular message sent twice is merged by protobuf: leave such an answer to fromBinary.
      const seen = taken.get(field);
      if (seen !== undefined && field.fieldKind === "message") return fromBinary(desc, bytes);
      if (seen === undefined) taken.set(field, [sub]);
      else seen.push(sub);
      if (sub.length >= MIN_SHARED_BYTES) large = true;
      if (start > restFrom) rest.push([restFrom, start]);
      restFrom = reader.pos;
    }
    if (!large) return fromBinary(desc, bytes);
    if (restFrom < bytes.length) rest.push([restFrom, bytes.length]);
    const message = fromBinary(desc, concat(bytes, rest)) as unknown as Record<string, unknown>;
    for (const [field, subs] of taken) {
      const decoded = subs.map((b) => (b.length >= MIN_SHARED_BYTES ? decodePart(field, b) : fromBinary(field.message, b)));
      message[field.localName] = field.fieldKind === "message" ? decoded[0] : decoded;
    }
    return message as unknown as Message;
  }

  /** Whether a field's parts are worth taking out of fromBinary's hands at all. */
  function worthTaking(field: MessageField): boolean {
    const r = recordOf(field);
    const probe = r.parts % PROBE_EVERY === 0;
    if (pays(r.hits, r.lookups, probe) || pays(r.fruitful, r.descents, probe)) return true;
    r.parts++; // counted while left inline too, so that the field is tried again in time
    return false;
  }

  return (desc, bytes) => decode(desc, bytes) as never;
}

/** A cheap key: the length and three windows of the bytes (equality is checked in full). */
function keyOf(b: Uint8Array): string {
  const w = 24;
  const mid = (b.length >> 1) - (w >> 1);
  return `${b.length}:${latin1(b, 0, w)}${latin1(b, mid, mid + w)}${latin1(b, b.length - w, b.length)}`;
}

function latin1(b: Uint8Array, from: number, to: number): string {
  return Buffer.from(b.buffer, b.byteOffset + Math.max(0, from), Math.min(b.length, to) - Math.max(0, from)).toString("latin1");
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0;
}

function concat(bytes: Uint8Array, ranges: [number, number][]): Uint8Array {
  if (ranges.length === 1) return bytes.subarray(ranges[0][0], ranges[0][1]);
  let n = 0;
  for (const [a, b] of ranges) n += b - a;
  const out = new Uint8Array(n);
  let at = 0;
  for (const [a, b] of ranges) {
    out.set(bytes.subarray(a, b), at);
    at += b - a;
  }
  return out;
}

/** Frozen all through: a shared part is read by many answers and must never change. */
function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === "object" && !Object.isFrozen(v) && !ArrayBuffer.isView(v)) {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}
