// Protobuf messages to the public JSON of each surface, driven by the descriptors (the protos
// are the source of truth), with each message's plan computed once and cached.
//
// Differences from protobuf's canonical JSON, which the public contract needs:
// - an unset optional field is written as null (a tri-state left unknown stays visibly unknown);
// - enums are written as the contract's words: the value name without its prefix, lower case,
//   with "_" (document 1: "not_required") or "-" (document 2: "nwp-likely") between words;
// - google.protobuf.Value is written as the plain JSON value it holds.
//
// Messages are written straight to JSON text, and the text of each message is remembered by
// identity: the engines build their static parts (permit requirements, citations, jurisdictions)
// once at start, so most of a determination is serialised once per process, not per request.
// This relies on messages never being mutated after they are built, which every service here
// keeps (see the direct transport). The text is spliced into envelopes by `stringify`.
import { ScalarType, type DescEnum, type DescField, type DescMessage, type Message } from "@bufbuild/protobuf";
import { ValueSchema, type Value } from "@bufbuild/protobuf/wkt";

export type EnumStyle = "snake" | "kebab";

/** JSON text already written, to be spliced as is by `stringify`. */
export class RawJson {
  constructor(readonly text: string) {}
  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

type FieldWriter = (msg: Record<string, unknown>) => string;

const plans = { snake: new WeakMap<DescMessage, FieldWriter[]>(), kebab: new WeakMap<DescMessage, FieldWriter[]>() };
const texts = { snake: new WeakMap<object, string>(), kebab: new WeakMap<object, string>() };
const enumWords = { snake: new WeakMap<DescEnum, Map<number, string>>(), kebab: new WeakMap<DescEnum, Map<number, string>>() };

/** The public JSON of a message (null when absent), ready to place in an envelope. */
export function toPublicJson(desc: DescMessage, msg: Message | undefined, style: EnumStyle): RawJson {
  return new RawJson(messageText(desc, msg, style));
}

function messageText(desc: DescMessage, msg: Message | undefined, style: EnumStyle): string {
  if (msg === undefined) return "null";
  const cache = texts[style];
  let text = cache.get(msg);
  if (text === undefined) {
    if (desc.typeName === ValueSchema.typeName) text = JSON.stringify(valueToJson(msg as unknown as Value)) ?? "null";
    else {
      const plan = planOf(desc, style);
      const m = msg as unknown as Record<string, unknown>;
      text = "{";
      for (let i = 0; i < plan.length; i++) text += (i === 0 ? "" : ",") + plan[i](m);
      text += "}";
    }
    cache.set(msg, text);
  }
  return text;
}

/** The contract word for one enum value, e.g. Coverage.NOT_REQUIRED -> "not_required". */
export function enumWord(desc: DescEnum, value: number, style: EnumStyle): string | null {
  let words = enumWords[style].get(desc);
  if (!words) {
    words = new Map(desc.values.map((v) => [v.number, v.localName.toLowerCase().replaceAll("_", style === "kebab" ? "-" : "_")]));
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
      return (m) => key + (m[name] === undefined ? "null" : text(m[name]));
    }
    case "enum": {
      const text = enumText(field.enum, style);
      return (m) => key + (m[name] === undefined ? "null" : text(m[name] as number));
    }
    case "message": {
      const d = field.message;
      return (m) => key + messageText(d, m[name] as Message | undefined, style);
    }
    case "list": {
      const item: (x: unknown) => string =
        field.listKind === "message"
          ? ((d) => (x) => messageText(d, x as Message, style))(field.message)
          : field.listKind === "enum"
            ? (enumText(field.enum, style) as (x: unknown) => string)
            : scalarText(field.scalar);
      return (m) => `${key}[${(m[name] as unknown[]).map(item).join(",")}]`;
    }
    case "map": {
      const value: (x: unknown) => string =
        field.mapKind === "message"
          ? ((d) => (x) => messageText(d, x as Message, style))(field.message)
          : field.mapKind === "enum"
            ? (enumText(field.enum, style) as (x: unknown) => string)
            : scalarText(field.scalar);
      return (m) => {
        const src = m[name] as Record<string, unknown>;
        return `${key}{${Object.keys(src).map((k) => `${JSON.stringify(k)}:${value(src[k])}`).join(",")}}`;
      };
    }
  }
}

function enumText(desc: DescEnum, style: EnumStyle): (v: number) => string {
  return (v) => JSON.stringify(enumWord(desc, v, style));
}

function scalarText(type: ScalarType): (v: unknown) => string {
  switch (type) {
    case ScalarType.STRING:
      return (v) => JSON.stringify(v);
    case ScalarType.BOOL:
      return (v) => (v ? "true" : "false");
    case ScalarType.BYTES:
      return (v) => JSON.stringify(Buffer.from(v as Uint8Array).toString("base64"));
    default:
      // Numbers as JSON writes them (NaN and infinities become null); 64-bit integers as numbers.
      return (v) => JSON.stringify(typeof v === "bigint" ? Number(v) : v);
  }
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

/** JSON.stringify for response bodies, splicing RawJson text in place. */
export function stringify(v: unknown): string {
  if (v instanceof RawJson) return v.text;
  if (v === null || typeof v !== "object") return JSON.stringify(v) ?? "null";
  if (Array.isArray(v)) return `[${v.map((x) => (x === undefined || typeof x === "function" ? "null" : stringify(x))).join(",")}]`;
  if (typeof (v as { toJSON?: unknown }).toJSON === "function") return stringify((v as { toJSON(): unknown }).toJSON());
  let out = "{";
  let first = true;
  for (const k of Object.keys(v)) {
    const x = (v as Record<string, unknown>)[k];
    if (x === undefined || typeof x === "function") continue;
    out += `${first ? "" : ","}${JSON.stringify(k)}:${stringify(x)}`;
    first = false;
  }
  return `${out}}`;
}
