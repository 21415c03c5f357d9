// A TIERS_FILE edited from data/tiers.json, for tests that need a policy changed or removed.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../..");

export interface TierPolicy {
  id: string;
  windows: Array<{ name: string; limit: number; quota?: boolean }>;
}

/** Writes data/tiers.json with `edit` applied to its policies into a temp file; returns its path. */
export function editedTiersFile(edit: (policies: TierPolicy[]) => TierPolicy[]): string {
  const doc = JSON.parse(readFileSync(path.join(ROOT, "data/tiers.json"), "utf8"));
  delete doc.$schema;
  doc.policies = edit(doc.policies);
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), "permits-tiers-")), "tiers.json");
  writeFileSync(file, JSON.stringify(doc));
  return file;
}
