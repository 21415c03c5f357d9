import { fileURLToPath } from "node:url";
import path from "node:path";

/**
 * The repository's data/ folder. This file sits at the same depth in src/ and dist/
 * (packages/rules/{src,dist}/data-dir), so one relative path serves both; DATA_DIR overrides it.
 */
export function dataDir(): string {
  return process.env.DATA_DIR || path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../data");
}
