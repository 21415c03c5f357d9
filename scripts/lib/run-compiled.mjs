// Runs a compiled CLI of the repository with this process's arguments. In a development tree it
// builds first (tsc -b is incremental, so this costs little when nothing changed); in the image,
// where the build tool is pruned, it runs the compiled CLI as it is.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Builds if it can, runs `cli` (a path from the repository root), and exits with its status. */
export function runCompiled(cli) {
  let tsc;
  try {
    tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  } catch {
    tsc = undefined; // production tree: no build tool, the compiled code is what there is
  }
  if (tsc) {
    const built = spawnSync(process.execPath, [tsc, "-b"], { cwd: root, stdio: "inherit" });
    if (built.status !== 0) process.exit(built.status ?? 1);
  }
  const run = spawnSync(process.execPath, [path.join(root, cli), ...process.argv.slice(2)], { stdio: "inherit" });
  process.exit(run.status ?? 1);
}
