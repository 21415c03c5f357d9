// The tier table is data (data/tiers.json), schema-checked at load so a typo fails the start,
// not the first request of a paying caller.
import { readFileSync } from "node:fs";
import path from "node:path";
import { Ajv, type ErrorObject } from "ajv";
import { dataDir } from "@permits/rules";

export type WindowName = "minute" | "hour" | "day" | "month";

export interface PolicyWindow {
  name: WindowName;
  limit: number;
  /** A billed plan ceiling (X-Quota-*), not an abuse limit. */
  quota: boolean;
}

export interface Policy {
  id: string;
  document: "stormwater" | "nwp" | "internal";
  tier: string;
  bucketBy: "ip" | "key" | "subscription";
  description?: string;
  windows: PolicyWindow[];
  upgradeUrl?: string;
}

export type PolicyTable = ReadonlyMap<string, Policy>;

interface TiersFile {
  version: 1;
  policies: Array<Omit<Policy, "windows"> & { windows: Array<Omit<PolicyWindow, "quota"> & { quota?: boolean }> }>;
}

export function tiersSchemaPath(): string {
  return path.join(dataDir(), "schemas", "tiers.schema.json");
}

export function defaultTiersPath(): string {
  return process.env.TIERS_FILE || path.join(dataDir(), "tiers.json");
}

/** Errors of a tiers document against the schema and the rules JSON Schema cannot say; empty when valid. */
export function validateTiers(doc: unknown, schema: object = readJson(tiersSchemaPath()) as object): string[] {
  const ajv = new Ajv({ allErrors: true, strict: true });
  const validate = ajv.compile(schema);
  if (!validate(doc)) return (validate.errors ?? []).map(formatError);
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const p of (doc as TiersFile).policies) {
    if (ids.has(p.id)) problems.push(`duplicate policy id ${p.id}`);
    ids.add(p.id);
    const names = p.windows.map((w) => w.name);
    if (new Set(names).size !== names.length) problems.push(`policy ${p.id} repeats a window name`);
  }
  return problems;
}

/** Loads and validates the tier table; `file` defaults to TIERS_FILE, then data/tiers.json. */
export function loadPolicies(file: string = defaultTiersPath()): PolicyTable {
  const doc = readJson(file);
  const problems = validateTiers(doc);
  if (problems.length > 0) throw new Error(`invalid tier table ${file}:\n  ${problems.join("\n  ")}`);
  return policiesFrom(doc as TiersFile);
}

/** Builds the table from an already validated document (tests build small ones inline). */
export function policiesFrom(doc: TiersFile): PolicyTable {
  const table = new Map<string, Policy>();
  for (const p of doc.policies) {
    table.set(p.id, { ...p, windows: p.windows.map((w) => ({ name: w.name, limit: w.limit, quota: w.quota ?? false })) });
  }
  return table;
}

function readJson(file: string): unknown {
  return JSON.parse(readFileSync(file, "utf8")) as unknown;
}

function formatError(e: ErrorObject): string {
  return `${e.instancePath || "/"} ${e.message ?? "is invalid"}${e.params ? ` ${JSON.stringify(e.params)}` : ""}`;
}
