// Protobuf messages to the public JSON of each surface, driven by the descriptors (the protos
// are the source of truth), with each message's plan computed once and cached.
//
// Differences from protobuf's canonical JSON, which the public contract needs:
// - an unset optional field is written as null (a tri-state left unknown stays visibly unknown);
// - enums are written as the contract's words: the value name without its prefix, lower case,
//   with "_" (the stormwater surface: "not_required") or "-" (the NWP surface: "nwp-likely") between words;
// - google.protobuf.Value is written as the plain JSON value it holds.
//
// Messages are written straight to JSON text. The engines build their static parts (permit
// requirements, citations, jurisdictions) once at start and freeze them; the text of a frozen
// message is remembered by identity, so most of a determination is serialised once per process,
// not per request. The text is spliced into envelopes by `serializeBody`.
import { ScalarType, type DescEnum, type DescField, type DescMessage, type Message } from "@bufbuild/protobuf";
import { ValueSchema, type Value } from "@bufbuild/protobuf/wkt";

export type EnumStyle = "snake" | "kebab";

/**
 * JSON to be spliced as is by `serializeBody`: either text already written, or a message written
 * straight into the response's output when the response is serialised (no intermediate string).
 */
export class RawJson {
  constructor(private readonly writeTo: (out: Out) => void) {}
  static text(text: string): RawJson {
    return new RawJson((out) => out.text(text));
  }
  write(out: Out): void {
    this.writeTo(out);
  }
  get text(): string {
    return written((out) => this.writeTo(out)).toString("utf8");
  }
  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

// One scratch area for assembling bodies; it grows to the largest body seen. Serialisation is
// synchronous, so one body at a time uses it; a body begun while another is being written (only
// RawJson.text could) gets an area of its own.
let scratch: Buffer = Buffer.allocUnsafeSlow(64 * 1024);
let scratchInUse = false;
const RUN_CHARS = 8 * 1024;

/**
 * A body being written: text joins a run that is encoded into the scratch area every few KB,
 * and the UTF-8 bytes of frozen messages written earlier are copied in beside it. Pushing pieces
 * to an array and joining them at the end cost an array of ~12,000 pieces per NWP batch, regrown
 * as it filled (a tenth of the batch's garbage).
 */
class Out {
  private buf: Buffer;
  private readonly shared: boolean;
  private run = "";
  private at = 0;

  constructor() {
    this.shared = !scratchInUse;
    this.buf = this.shared ? scratch : Buffer.allocUnsafeSlow(16 * 1024);
    if (this.shared) scratchInUse = true;
  }

  text(s: string): void {
    this.run += s;
    // A long rope is flattened in pieces: one of a whole batch (~1 MB of UTF-16) would be a large
    // short-lived string for the old generation to collect.
    if (this.run.length >= RUN_CHARS) this.flush();
  }

  bytes(b: Buffer): void {
    this.flush();
    this.reserve(b.length);
    this.buf.set(b, this.at);
    this.at += b.length;
  }

  /** Writes the text `cache` holds for `key`; false when it holds none. */
  replay(cache: WeakMap<object, Buffer>, key: object): boolean {
    const bytes = cache.get(key);
    if (bytes === undefined) return false;
    this.bytes(bytes);
    return true;
  }

  /** Where the next byte goes: `remember` then keeps what was written since as `key`'s text. */
  mark(): number {
    this.flush();
    return this.at;
  }

  remember(cache: WeakMap<object, Buffer>, key: object, start: number): void {
    this.flush();
    cache.set(key, copyOut(this.buf, start, this.at));
  }

  /** The body's bytes. */
  finish(): Buffer {
    this.flush();
    return copyOut(this.buf, 0, this.at);
  }

  /** Frees the scratch area (also after a throw, which would otherwise keep it taken). */
  release(): void {
    if (!this.shared || !scratchInUse) return;
    scratch = this.buf; // kept at the size it grew to
    scratchInUse = false;
  }

  private flush(): void {
    if (this.run === "") return;
    // A UTF-16 code unit never takes more than 3 bytes in UTF-8.
    this.reserve(this.run.length * 3);
    this.at += this.buf.write(this.run, this.at, "utf8");
    this.run = "";
  }

  private reserve(more: number): void {
    if (this.at + more <= this.buf.length) return;
    const bigger = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, this.at + more));
    this.buf.copy(bigger, 0, 0, this.at);
    this.buf = bigger;
  }
}

function copyOut(buf: Buffer, from: number, to: number): Buffer {
  const out = Buffer.allocUnsafe(to - from);
  buf.copy(out, 0, from, to);
  return out;
}

type FieldWriter = (msg: Record<string, unknown>, out: Out) => void;

const plans = { snake: new WeakMap<DescMessage, FieldWriter[]>(), kebab: new WeakMap<DescMessage, FieldWriter[]>() };
const texts = { snake: new WeakMap<object, Buffer>(), kebab: new WeakMap<object, Buffer>() };
const listTexts = { snake: new WeakMap<object, Buffer>(), kebab: new WeakMap<object, Buffer>() };
const enumWords = { snake: new WeakMap<DescEnum, Map<number, string>>(), kebab: new WeakMap<DescEnum, Map<number, string>>() };

/** The public JSON of a message (null when absent), ready to place in an envelope. */
export function toPublicJson(desc: DescMessage, msg: Message | undefined, style: EnumStyle): RawJson {
  return new RawJson((out) => writeMessage(desc, msg, style, out));
}

// Frozen messages are kept as UTF-8 bytes, so the bulk of an answer (permit text) is neither
// re-encoded nor re-measured per response.
function writeMessage(desc: DescMessage, msg: Message | undefined, style: EnumStyle, out: Out): void {
  if (msg === undefined) {
    out.text("null");
    return;
  }
  // Only frozen messages (the services' prepared datasets) are cached: caching per-request
  // messages would cost more in weak-map upkeep and GC than writing them again.
  const frozen = Object.isFrozen(msg);
  if (frozen && out.replay(texts[style], msg)) return;
  const start = frozen ? out.mark() : 0;
  if (desc.typeName === ValueSchema.typeName) out.text(JSON.stringify(valueToJson(msg as unknown as Value)) ?? "null");
  else {
    const plan = planOf(desc, style);
    const m = msg as unknown as Record<string, unknown>;
    out.text("{");
    for (let i = 0; i < plan.length; i++) {
      if (i > 0) out.text(",");
      plan[i](m, out);
    }
    out.text("}");
  }
  if (frozen) out.remember(texts[style], msg, start);
}

// A fact's basis reads the same on both surfaces ("official-text"), as the datasets write it.
const ALWAYS_KEBAB = new Set(["permits.common.v1.Basis"]);

/** The contract word for one enum value, e.g. Coverage.NOT_REQUIRED -> "not_required". */
export function enumWord(desc: DescEnum, value: number, style: EnumStyle): string | null {
  let words = enumWords[style].get(desc);
  if (!words) {
    const sep = style === "kebab" || ALWAYS_KEBAB.has(desc.typeName) ? "-" : "_";
    words = new Map(desc.values.map((v) => [v.number, v.localName.toLowerCase().replaceAll("_", sep)]));
    enumWords[style].set(desc, words);
  }
  // The zero value means "not set" in every enum here.
  return value === 0 ? null : (words.get(value) ?? null);
}

function planOf(desc: DescMessage, style: EnumStyle): FieldWriter[] {
  let plan = plans[style].get(desc);
  if (!plan) {
    plan = desc.fields.map((f) => writerFor(f, style));
    plans[style].set(desc, plan);
  }
  return plan;
}

function writerFor(field: DescField, style: EnumStyle): FieldWriter {
  const name = field.localName;
  const key = `${JSON.stringify(field.jsonName)}:`;
  switch (field.fieldKind) {
    case "scalar": {
      const text = scalarText(field.scalar);
      return (m, out) => {
        out.text(key);
        out.text(m[name] === undefined ? "null" : text(m[name]));
      };
    }
    case "enum": {
      const text = enumText(field.enum, style);
      return (m, out) => {
        out.text(key);
        out.text(m[name] === undefined ? "null" : text(m[name] as number));
      };
    }
    case "message": {
      const d = field.message;
      return (m, out) => {
        out.text(key);
        writeMessage(d, m[name] as Message | undefined, style, out);
      };
    }
    case "list": {
      const item = itemWriter(field.listKind === "message" ? field.message : undefined, field.listKind === "enum" ? field.enum : undefined, field.listKind === "scalar" ? field.scalar : undefined, style);
      const texts = listTexts[style];
      return (m, out) => {
        const list = m[name] as unknown[];
        out.text(key);
        // A frozen list (shared notices, say) is written once, like a frozen message.
        const frozen = list.length > 0 && Object.isFrozen(list);
        if (frozen && out.replay(texts, list)) return;
        const start = frozen ? out.mark() : 0;
        out.text("[");
        for (let i = 0; i < list.length; i++) {
          if (i > 0) out.text(",");
          item(list[i], out);
        }
        out.text("]");
        if (frozen) out.remember(texts, list, start);
      };
    }
    case "map": {
      const value = itemWriter(field.mapKind === "message" ? field.message : undefined, field.mapKind === "enum" ? field.enum : undefined, field.mapKind === "scalar" ? field.scalar : undefined, style);
      return (m, out) => {
        const src = m[name] as Record<string, unknown>;
        out.text(key);
        out.text("{");
        Object.keys(src).forEach((k, i) => {
          if (i > 0) out.text(",");
          out.text(JSON.stringify(k));
          out.text(":");
          value(src[k], out);
        });
        out.text("}");
      };
    }
  }
}

function itemWriter(message: DescMessage | undefined, enumDesc: DescEnum | undefined, scalar: ScalarType | undefined, style: EnumStyle): (x: unknown, out: Out) => void {
  if (message) return (x, out) => writeMessage(message, x as Message, style, out);
  const text = enumDesc ? (enumText(enumDesc, style) as (x: unknown) => string) : scalarText(scalar!);
  return (x, out) => {
    out.text(text(x));
  };
}

function enumText(desc: DescEnum, style: EnumStyle): (v: number) => string {
  return (v) => JSON.stringify(enumWord(desc, v, style));
}

// Characters JSON must escape (and lone surrogates, which JSON.stringify escapes): strings without
// any, nearly all of them, are quoted directly instead of through JSON.stringify.
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

function quote(v: string): string {
  return NEEDS_ESCAPE.test(v) ? JSON.stringify(v) : `"${v}"`;
}

// Long strings are often dataset text inside per-request messages (coverage gaps, labels,
// citations, the envelopes' disclaimers): the quoted text of one seen twice is kept by value, so
// later sightings cost a hash lookup (V8 keeps a string's hash) instead of an escape scan. Text
// seen once (numbers of one request) only enters the small first-sighting set, so it never
// crowds out the text that recurs. Both are bounded and start over when full.
const LONG_TEXT = 64;
const MAX_TEXTS = 4096;
let quotedTexts = new Map<string, string>();
let seenOnce = new Set<string>();

function quoteText(v: string): string {
  if (v.length < LONG_TEXT) return quote(v);
  let text = quotedTexts.get(v);
  if (text !== undefined) return text;
  text = quote(v);
  if (!seenOnce.has(v)) {
    if (seenOnce.size >= MAX_TEXTS) seenOnce = new Set();
    seenOnce.add(v);
  } else {
    if (quotedTexts.size >= MAX_TEXTS) quotedTexts = new Map();
    quotedTexts.set(v, text);
  }
  return text;
}

function scalarText(type: ScalarType): (v: unknown) => string {
  switch (type) {
    case ScalarType.STRING:
      return (v) => quoteText(v as string);
    case ScalarType.BOOL:
      return (v) => (v ? "true" : "false");
    case ScalarType.BYTES:
      return (v) => JSON.stringify(Buffer.from(v as Uint8Array).toString("base64"));
    default:
      return numberText;
  }
}

// Indexes, permit numbers, days: most numbers are small whole ones, whose text is made once.
const SMALL_INTS = Array.from({ length: 1024 }, (_, i) => String(i));

/** A number as JSON writes it (NaN and infinities become null); 64-bit integers as numbers. */
function numberText(v: unknown): string {
  const n = typeof v === "bigint" ? Number(v) : (v as number);
  if (Number.isInteger(n) && n >= 0 && n < SMALL_INTS.length) return SMALL_INTS[n];
  return Number.isFinite(n) ? String(n) : "null";
}

function valueToJson(v: Value): unknown {
  switch (v.kind.case) {
    case "numberValue":
    case "stringValue":
    case "boolValue":
      return v.kind.value;
    case "listValue":
      return v.kind.value.values.map(valueToJson);
    case "structValue": {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v.kind.value.fields)) out[k] = valueToJson(x);
      return out;
    }
    default:
      return null;
  }
}

/** A response body: JSON.stringify's output as UTF-8 bytes, splicing RawJson in place. */
export function serializeBody(v: unknown): Buffer {
  return written((out) => writeValue(v, out));
}

function written(write: (out: Out) => void): Buffer {
  const out = new Out();
  try {
    write(out);
    return out.finish();
  } finally {
    out.release();
  }
}

function writeValue(v: unknown, out: Out): void {
  if (v instanceof RawJson) return v.write(out);
  if (typeof v === "string") {
    out.text(quoteText(v));
    return;
  }
  if (typeof v === "number") {
    out.text(numberText(v));
    return;
  }
  if (v === null || typeof v !== "object") {
    out.text(JSON.stringify(v) ?? "null");
    return;
  }
  if (Array.isArray(v)) {
    out.text("[");
    for (let i = 0; i < v.length; i++) {
      if (i > 0) out.text(",");
      const x = v[i];
      if (x === undefined || typeof x === "function") out.text("null");
      else writeValue(x, out);
    }
    out.text("]");
    return;
  }
  if (typeof (v as { toJSON?: unknown }).toJSON === "function") return writeValue((v as { toJSON(): unknown }).toJSON(), out);
  out.text("{");
  let first = true;
  for (const k of Object.keys(v)) {
    const x = (v as Record<string, unknown>)[k];
    if (x === undefined || typeof x === "function") continue;
    if (!first) out.text(",");
    out.text(quote(k));
    out.text(":");
    writeValue(x, out);
    first = false;
  }
  out.text("}");
}
