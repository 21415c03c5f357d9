// Loads data/stormwater/ once at start: reads every file, validates each data file against its
// JSON Schema, and precomputes the engine's lookup maps and static messages. datasetVersion is
// the dataset's asOf date plus a short hash of every file, so it moves whenever the data moves.
import { dataDir, deepFreeze } from "@permits/rules";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Ajv, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import { prepareDataset } from "./engine/prepare.js";
import type { RawData } from "./engine/raw.js";
import type { Dataset } from "./engine/types.js";

export type { Dataset } from "./engine/types.js";

/** Data files and their schemas (data/stormwater/<name>.json, schemas/<name>.schema.json). */
export const DATA_FILES = ["manifest", "jurisdictions", "permits", "cgp-requirements", "epa-areas"] as const;
export type DataFile = (typeof DATA_FILES)[number];
const SCHEMA_BASE = "https://permits.local/schemas/stormwater/";

// ajv-formats is CommonJS; its default export arrives as the module object under NodeNext.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

export function stormwaterDir(): string {
  return path.join(dataDir(), "stormwater");
}

/** Every file under the folder, by relative path (posix separators), sorted for a stable hash. */
export function readStormwaterFiles(dir = stormwaterDir()): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(r);
      else if (e.name.endsWith(".json")) out.set(r, fs.readFileSync(path.join(dir, r), "utf8"));
    }
  };
  walk("");
  return out;
}

export function schemaValidators(files: Map<string, string>): Map<DataFile, ValidateFunction> {
  const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, strictTypes: false, allowUnionTypes: true });
  addFormats(ajv);
  for (const [name, text] of files) if (name.startsWith("schemas/")) ajv.addSchema(JSON.parse(text));
  const out = new Map<DataFile, ValidateFunction>();
  for (const f of DATA_FILES) {
    const v = ajv.getSchema(`${SCHEMA_BASE}${f}.schema.json`);
    if (!v) throw new Error(`stormwater dataset: schema for ${f}.json is missing`);
    out.set(f, v);
  }
  return out;
}

/** Parses and schema-validates the data files; throws with every schema error found. */
export function validateStormwaterFiles(files: Map<string, string>): RawData {
  const validators = schemaValidators(files);
  const parsed: Partial<Record<DataFile, unknown>> = {};
  const errors: string[] = [];
  for (const f of DATA_FILES) {
    const text = files.get(`${f}.json`);
    if (text === undefined) {
      errors.push(`${f}.json is missing`);
      continue;
    }
    const value: unknown = JSON.parse(text);
    const v = validators.get(f)!;
    if (!v(value)) for (const e of v.errors ?? []) errors.push(`${f}.json${e.instancePath}: ${e.message}`);
    parsed[f] = value;
  }
  if (errors.length > 0) throw new Error(`stormwater dataset failed schema validation:\n${errors.join("\n")}`);
  return {
    manifest: parsed.manifest,
    jurisdictions: parsed.jurisdictions,
    permits: parsed.permits,
    cgpRequirements: parsed["cgp-requirements"],
    epaAreas: parsed["epa-areas"],
  } as RawData;
}

/** asOf plus the first 10 hex digits of a SHA-256 over every file name and content. */
export function datasetVersionOf(asOf: string, files: Map<string, string>): string {
  const h = createHash("sha256");
  for (const name of [...files.keys()].sort()) h.update(name).update("\0").update(files.get(name)!).update("\0");
  return `${asOf}.${h.digest("hex").slice(0, 10)}`;
}

export function buildDataset(files: Map<string, string>): Dataset {
  const raw = validateStormwaterFiles(files);
  return prepareDataset(raw, datasetVersionOf(raw.manifest.asOf, files));
}

/** Call once at start; the result is shared by every request. */
export function loadDataset(dir = stormwaterDir()): Dataset {
  // Frozen: shared by every request, and immutable so its messages' JSON can be cached.
  return deepFreeze(buildDataset(readStormwaterFiles(dir)));
}
