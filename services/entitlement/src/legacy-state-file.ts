// The JSON state file the entitlement service kept before LMDB (`STATE_DIR/entitlement.json`).
// On first start the LMDB store imports it, then renames it `entitlement.json.migrated` (kept as
// a backup, never read again). A file that does not parse stops the start: starting empty would
// drop every issued key.
import { readFile, rename } from "node:fs/promises";
import path from "node:path";
import { isLocalSubscriptionStatus, parseStoredKey, type LocalSubscriptionStatus, type StoredKey } from "./store.js";

export const LEGACY_STATE_FILE = "entitlement.json";
export const MIGRATED_SUFFIX = ".migrated";

export interface LegacyState {
  keys: StoredKey[];
  subscriptions: Record<string, LocalSubscriptionStatus>;
}

export function parseLegacyState(text: string, file: string): LegacyState {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new Error(`entitlement state file ${file} is not valid JSON`);
  }
  const obj = raw as { keys?: unknown; subscriptions?: unknown };
  if (!obj || typeof obj !== "object" || !Array.isArray(obj.keys)) {
    throw new Error(`entitlement state file ${file} has no keys array`);
  }
  const subscriptions: Record<string, LocalSubscriptionStatus> = {};
  for (const [id, status] of Object.entries((obj.subscriptions ?? {}) as Record<string, unknown>)) {
    if (!isLocalSubscriptionStatus(status)) throw new Error(`entitlement state file ${file} has a bad subscription status`);
    subscriptions[id] = status;
  }
  return { keys: obj.keys.map(parseStoredKey), subscriptions };
}

/**
 * Imports `entitlement.json` through `apply` (which must skip what the store already holds, so two
 * processes starting at once import it once), then moves the file aside. Absent file: nothing to do.
 */
export async function migrateLegacyStateFile(stateDir: string, apply: (state: LegacyState) => Promise<unknown>): Promise<boolean> {
  const file = path.join(stateDir, LEGACY_STATE_FILE);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw err;
  }
  await apply(parseLegacyState(text, file));
  try {
    await rename(file, file + MIGRATED_SUFFIX);
  } catch (err) {
    // Another process migrated it first.
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  return true;
}
