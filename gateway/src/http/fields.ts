// One table of fields per public input, read by the REST parsers (JSON bodies and query
// strings) and, later, by the MCP tool schemas, so the rules exist once.
import { invalidArgument, ViolationReason, type Violation } from "@permits/rules";

export type FieldType = "string" | "number" | "boolean";

export interface FieldSpec {
  type: FieldType;
  /** Where the parsed value goes in the service request (defaults to the public name). */
  target?: string;
  /** Tri-state: null is accepted and means "not stated". Every optional field takes null. */
  nullable?: boolean;
  description: string;
  enum?: readonly string[];
  minimum?: number;
  format?: "date";
}

export type FieldTable = Record<string, FieldSpec>;

// Query strings carry text; these are the only words a boolean may be written as.
const TRUE_WORDS = new Set(["true", "1", "yes", "y"]);
const FALSE_WORDS = new Set(["false", "0", "no", "n"]);
const NUMBER_TEXT = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * Checks the shape of an input against its table: unknown keys, and each value's type.
 * Values (known catalogues, ranges, required fields) are the service's to judge.
 * Returns the service request fields; throws InvalidArgument with every problem found.
 */
export function parseFields(
  table: FieldTable,
  input: unknown,
  source: "json" | "query",
  aliases: Record<string, string> = {},
): Record<string, unknown> {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw invalidArgument("The request body must be a JSON object.", [
      { field: "body", description: "The request body must be a JSON object.", reason: ViolationReason.MALFORMED },
    ]);
  }
  const entries = input as Record<string, unknown>;
  const knownKeys = Object.keys(table);
  const unknownKeys = Object.keys(entries).filter((k) => !(k in table));
  const violations: Violation[] = [];
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(table)) {
    if (!(name in entries)) continue;
    const raw = entries[name];
    const target = aliases[name] ?? spec.target ?? name;
    // An alias read first wins (the stormwater surface: `acres` before `disturbedAcres`, as document 1 orders them).
    if (target in out && out[target] !== undefined) continue;
    const parsed = parseValue(name, spec, raw, source);
    if ("error" in parsed) violations.push({ field: name, description: parsed.error, reason: ViolationReason.MALFORMED, knownValues: spec.enum ? [...spec.enum] : undefined });
    else if (parsed.value !== undefined) out[target] = parsed.value;
  }
  if (unknownKeys.length) {
    throw invalidArgument(`Unknown field${unknownKeys.length > 1 ? "s" : ""}: ${unknownKeys.join(", ")}.`, violations, { unknownKeys, knownKeys });
  }
  if (violations.length) throw invalidArgument(violations.map((v) => v.description).join(" "), violations);
  return out;
}

function parseValue(name: string, spec: FieldSpec, raw: unknown, source: "json" | "query"): { value: unknown } | { error: string } {
  if (raw === null || (source === "query" && raw === "")) return { value: undefined };
  if (source === "query" && Array.isArray(raw)) return { error: `${name} was given more than once.` };
  switch (spec.type) {
    case "string":
      return typeof raw === "string" ? { value: raw } : { error: `${name} must be a string.` };
    case "number": {
      if (source === "json") {
        return typeof raw === "number" && Number.isFinite(raw) ? { value: raw } : { error: `${name} must be a finite number.` };
      }
      const text = String(raw).trim();
      const n = Number(text);
      return NUMBER_TEXT.test(text) && Number.isFinite(n) ? { value: n } : { error: `${name} must be a number, got "${String(raw).slice(0, 40)}".` };
    }
    case "boolean": {
      if (source === "json") return typeof raw === "boolean" ? { value: raw } : { error: `${name} must be true or false (a JSON boolean).` };
      const word = String(raw).trim().toLowerCase();
      if (TRUE_WORDS.has(word)) return { value: true };
      if (FALSE_WORDS.has(word)) return { value: false };
      return { error: `${name} must be one of true, false, 1, 0, yes, no, y, n.` };
    }
  }
}
