// JSON Schemas for the OpenAPI document, derived from the same sources the code runs on:
// response shapes from the proto descriptors (as written by public-json.ts), each field described
// by its comment in the .proto, and request shapes from the field tables (as read by fields.ts).
import { ScalarType, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { fieldDescriptions } from "@permits/proto/descriptions";
import { enumWord, type EnumStyle } from "./public-json.js";
import type { FieldSpec, FieldTable } from "./fields.js";

type Schema = Record<string, unknown>;

// FeatureSet.FieldPresence.EXPLICIT: proto3 `optional` scalars and every message field.
const EXPLICIT = 1;

export interface SchemaNaming {
  style: EnumStyle;
  /** Component name of a message, e.g. Determination or NwpDetermination. */
  name: (desc: DescMessage) => string;
}

/** Adds the schema of `desc` and of every message it reaches to `components`. */
export function addMessageSchemas(desc: DescMessage, naming: SchemaNaming, components: Record<string, Schema>): string {
  const name = naming.name(desc);
  if (components[name]) return name;
  components[name] = {}; // reserve first: messages may refer to each other
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  for (const f of desc.fields) {
    properties[f.jsonName] = described(fieldSchema(f, naming, components), f);
    if (!isNullable(f)) required.push(f.jsonName);
  }
  components[name] = { type: "object", properties, required };
  return name;
}

/** A field means what its leading comment in the .proto says (generated into @permits/proto/descriptions). */
function described(schema: Schema, f: DescField): Schema {
  const text = fieldDescriptions[`${f.parent.typeName}.${f.name}`];
  return text ? { ...schema, description: text } : schema;
}

function isNullable(f: DescField): boolean {
  return (f.fieldKind === "scalar" || f.fieldKind === "enum" || f.fieldKind === "message") && (f.presence === EXPLICIT || f.fieldKind === "message");
}

function fieldSchema(f: DescField, naming: SchemaNaming, components: Record<string, Schema>): Schema {
  const base = ((): Schema => {
    switch (f.fieldKind) {
      case "scalar":
        return scalarSchema(f.scalar);
      case "enum":
        return { type: "string", enum: f.enum.values.filter((v) => v.number !== 0).map((v) => enumWord(f.enum, v.number, naming.style)) };
      case "message":
        return messageRef(f.message, naming, components);
      case "list":
        return {
          type: "array",
          items:
            f.listKind === "message"
              ? messageRef(f.message, naming, components)
              : f.listKind === "enum"
                ? { type: "string", enum: f.enum.values.filter((v) => v.number !== 0).map((v) => enumWord(f.enum, v.number, naming.style)) }
                : scalarSchema(f.scalar),
        };
      case "map":
        return { type: "object", additionalProperties: f.mapKind === "message" ? messageRef(f.message, naming, components) : {} };
    }
  })();
  return isNullable(f) ? nullable(base) : base;
}

function messageRef(desc: DescMessage, naming: SchemaNaming, components: Record<string, Schema>): Schema {
  if (desc.typeName === ValueSchema.typeName) return { description: "A string, a number, or null." };
  return { $ref: `#/components/schemas/${addMessageSchemas(desc, naming, components)}` };
}

function nullable(s: Schema): Schema {
  if ("$ref" in s) return { oneOf: [s, { type: "null" }] };
  if (typeof s.type === "string") return { ...s, type: [s.type, "null"], ...(s.enum ? { enum: [...(s.enum as unknown[]), null] } : {}) };
  return s;
}

function scalarSchema(t: ScalarType): Schema {
  switch (t) {
    case ScalarType.BOOL:
      return { type: "boolean" };
    case ScalarType.STRING:
      return { type: "string" };
    case ScalarType.BYTES:
      return { type: "string", contentEncoding: "base64" };
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return { type: "number" };
    default:
      return { type: "integer" };
  }
}

export function fieldSpecSchema(spec: FieldSpec): Schema {
  const s: Schema = { type: spec.nullable ? [spec.type, "null"] : spec.type, description: spec.description };
  if (spec.enum) s.enum = [...spec.enum];
  if (spec.minimum !== undefined) s.minimum = spec.minimum;
  if (spec.format) s.format = spec.format;
  return s;
}

/** A JSON body read by parseFields: unknown fields are refused, hence additionalProperties false. */
export function fieldTableSchema(table: FieldTable, required: string[] = []): Schema {
  return {
    type: "object",
    additionalProperties: false,
    properties: Object.fromEntries(Object.entries(table).map(([k, v]) => [k, fieldSpecSchema(v)])),
    ...(required.length ? { required } : {}),
  };
}
