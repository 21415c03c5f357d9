// A description for every property of the OpenAPI document. Schemas generated from the protos
// carry none (the protos' field comments are not in the embedded descriptors), so the words live
// as data in gateway/openapi/property-descriptions.json, keyed by the property's JSON Pointer in
// the document.
// Applied once at start; a description written in code wins over the file.
import { readFileSync } from "node:fs";

// gateway/openapi/, from src/surfaces/meta as from dist/surfaces/meta.
const file = new URL("../../../openapi/property-descriptions.json", import.meta.url);
const DESCRIPTIONS: Record<string, string> = JSON.parse(readFileSync(file, "utf8")).descriptions;

const escape = (key: string) => key.replace(/~/g, "~0").replace(/\//g, "~1");

/** Every property schema of `doc`, with its JSON Pointer. */
export function* propertiesOf(node: unknown, at = ""): Generator<[string, Record<string, unknown>]> {
  if (!node || typeof node !== "object") return;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) yield* propertiesOf(node[i], `${at}/${i}`);
    return;
  }
  const obj = node as Record<string, unknown>;
  const props = obj.properties;
  if (props && typeof props === "object" && !Array.isArray(props)) {
    for (const [k, v] of Object.entries(props as Record<string, unknown>)) {
      if (v && typeof v === "object") yield [`${at}/properties/${escape(k)}`, v as Record<string, unknown>];
    }
  }
  for (const [k, v] of Object.entries(obj)) yield* propertiesOf(v, `${at}/${escape(k)}`);
}

/** Sets each property's description from the file where the code gave none; returns the pointers used. */
export function describeProperties(doc: unknown): Set<string> {
  const used = new Set<string>();
  for (const [pointer, schema] of propertiesOf(doc)) {
    if (typeof schema.description === "string" && schema.description !== "") continue;
    const text = DESCRIPTIONS[pointer];
    if (text === undefined) continue;
    // A $ref with siblings is valid OpenAPI 3.1; the description then says what this use means.
    schema.description = text;
    used.add(pointer);
  }
  return used;
}

export const describedPointers = (): string[] => Object.keys(DESCRIPTIONS);
