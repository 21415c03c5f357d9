import { fileURLToPath } from "node:url";
import path from "node:path";

/**
 * The repository's data/ folder. Services sit at the same depth in src/ and dist/
 * (services/<name>/{src,dist}/file), so one relative path serves both; DATA_DIR overrides it.
 */
export function dataDir(): string {
  return process.env.DATA_DIR || path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../data");
}
