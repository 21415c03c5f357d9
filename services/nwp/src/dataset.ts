// Loads data/nwp once at start, validates each file against its JSON Schema, then compiles the
// lookup maps. A dataset that fails its schema stops the service instead of serving bad facts.
import { dataDir, deepFreeze } from "@permits/rules";
import fs from "node:fs";
import path from "node:path";
import { Ajv } from "ajv";
import { compileDataset, type Dataset } from "./engine/index.js";
import type { RawDataset } from "./engine/types.js";

export const DATA_FILES = {
  ruleset: "ruleset.json",
  permits: "permits.json",
  districts: "districts.json",
  states: "states-401.json",
  activities: "activities.json",
} as const;

export type DataFileKey = keyof typeof DATA_FILES;

export function nwpDataDir(): string {
  return path.join(dataDir(), "nwp");
}

function readJson(file: string): unknown {
  return JSON.parse(fs.readFileSync(file, "utf8"));
}

/** An Ajv instance holding every schema of data/nwp/schemas (exported for the schema tests). */
export function createValidator(dir = nwpDataDir()): { validate: (key: DataFileKey, value: unknown) => string[] } {
  const schemaDir = path.join(dir, "schemas");
  const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false });
  ajv.addSchema(readJson(path.join(schemaDir, "defs.schema.json")) as object);
  const fns = Object.fromEntries(
    (Object.keys(DATA_FILES) as DataFileKey[]).map((k) => {
      const schemaFile = DATA_FILES[k].replace(/\.json$/, ".schema.json");
      return [k, ajv.compile(readJson(path.join(schemaDir, schemaFile)) as object)];
    }),
  ) as Record<DataFileKey, ReturnType<Ajv["compile"]>>;
  return {
    validate(key, value) {
      const fn = fns[key];
      return fn(value) ? [] : (fn.errors ?? []).map((e) => `${DATA_FILES[key]}${e.instancePath} ${e.message ?? ""}`.trim());
    },
  };
}

export function loadRawDataset(dir = nwpDataDir()): RawDataset {
  const validator = createValidator(dir);
  const raw = {} as Record<DataFileKey, unknown>;
  const errors: string[] = [];
  for (const k of Object.keys(DATA_FILES) as DataFileKey[]) {
    raw[k] = readJson(path.join(dir, DATA_FILES[k]));
    errors.push(...validator.validate(k, raw[k]));
  }
  if (errors.length > 0) throw new Error(`data/nwp failed schema validation:\n${errors.join("\n")}`);
  return raw as unknown as RawDataset;
}

let cached: Dataset | undefined;

/** Loads, validates and compiles once per process. */
export function loadDataset(dir?: string): Dataset {
  // Frozen: shared by every request, and immutable so its messages' JSON can be cached.
  if (dir !== undefined) return deepFreeze(compileDataset(loadRawDataset(dir)));
  cached ??= deepFreeze(compileDataset(loadRawDataset()));
  return cached;
}
