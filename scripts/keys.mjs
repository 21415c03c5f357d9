// npm run keys -- <command>: the key CLI (services/entitlement/src/cli.ts). In a development tree it
// builds first (tsc -b is incremental, so this costs little when nothing changed); in the image,
// where the build tool is pruned, it runs the compiled CLI as it is.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
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
const cli = spawnSync(process.execPath, [path.join(root, "services/entitlement/dist/cli.js"), ...process.argv.slice(2)], { stdio: "inherit" });
process.exit(cli.status ?? 1);
