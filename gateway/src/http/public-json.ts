// Protobuf messages to the public JSON of each surface, driven by the descriptors (the protos
// are the source of truth), with each message's plan computed once and cached.
//
// Differences from protobuf's canonical JSON, which the public contract needs:
// - an unset optional field is written as null (a tri-state left unknown stays visibly unknown);
// - enums are written as the contract's words: the value name without its prefix, lower case,
//   with "_" (document 1: "not_required") or "-" (document 2: "nwp-likely") between words;
// - google.protobuf.Value is written as the plain JSON value it holds.
import { ScalarType, type DescEnum, type DescField, type DescMessage, type Message } from "@bufbuild/protobuf";
import { ValueSchema, type Value } from "@bufbuild/protobuf/wkt";

export type EnumStyle = "snake" | "kebab";

type FieldWriter = (msg: Record<string, unknown>, out: Record<string, unknown>) => void;

const plans = { snake: new WeakMap<DescMessage, FieldWriter[]>(), kebab: new WeakMap<DescMessage, FieldWriter[]>() };
const enumWords = { snake: new WeakMap<DescEnum, Map<number, string>>(), kebab: new WeakMap<DescEnum, Map<number, string>>() };

export function toPublicJson(desc: DescMessage, msg: Message | undefined, style: EnumStyle): Record<string, unknown> | null {
  if (msg === undefined) return null;
  if (desc.typeName === ValueSchema.typeName) return valueToJson(msg as unknown as Value) as never;
  const out: Record<string, unknown> = {};
  for (const write of planOf(desc, style)) write(msg as unknown as Record<string, unknown>, out);
  return out;
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
  const json = field.jsonName;
  switch (field.fieldKind) {
    case "scalar": {
      const convert = scalarConverter(field.scalar);
      return (m, o) => {
        const v = m[name];
        o[json] = v === undefined ? null : convert(v);
      };
    }
    case "enum": {
      const e = field.enum;
      return (m, o) => {
        const v = m[name];
        o[json] = v === undefined ? null : enumWord(e, v as number, style);
      };
    }
    case "message": {
      const d = field.message;
      return (m, o) => {
        o[json] = toPublicJson(d, m[name] as Message | undefined, style);
      };
    }
    case "list": {
      if (field.listKind === "message") {
        const d = field.message;
        return (m, o) => {
          o[json] = (m[name] as Message[]).map((x) => toPublicJson(d, x, style));
        };
      }
      if (field.listKind === "enum") {
        const e = field.enum;
        return (m, o) => {
          o[json] = (m[name] as number[]).map((x) => enumWord(e, x, style));
        };
      }
      const convert = scalarConverter(field.scalar);
      return (m, o) => {
        o[json] = (m[name] as unknown[]).map(convert);
      };
    }
    case "map": {
      return (m, o) => {
        const src = m[name] as Record<string, unknown>;
        const dst: Record<string, unknown> = {};
        for (const k of Object.keys(src)) {
          const v = src[k];
          dst[k] =
            field.mapKind === "message"
              ? toPublicJson(field.message, v as Message, style)
              : field.mapKind === "enum"
                ? enumWord(field.enum, v as number, style)
                : v;
        }
        o[json] = dst;
      };
    }
  }
}

function scalarConverter(type: ScalarType): (v: unknown) => unknown {
  switch (type) {
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.SINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return (v) => Number(v);
    case ScalarType.BYTES:
      return (v) => Buffer.from(v as Uint8Array).toString("base64");
    default:
      return (v) => v;
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
