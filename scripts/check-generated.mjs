// Fails when `buf generate` would change the committed generated code in proto/gen.
// Generates into a temporary folder with the same plugin options and compares file by file.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const tmp = mkdtempSync(path.join(os.tmpdir(), "buf-gen-"));
const template = path.join(tmp, "buf.gen.yaml");
const out = path.join(tmp, "gen");
writeFileSync(
  template,
  readFileSync(path.join(root, "buf.gen.yaml"), "utf8").replace(/out: proto\/gen/g, `out: ${out}`),
);
try {
  execFileSync("npx", ["buf", "generate", "--template", template], { cwd: root, stdio: "inherit" });
  const list = (dir) =>
    readdirSync(dir, { recursive: true })
      .filter((f) => statSync(path.join(dir, f)).isFile())
      .sort();
  const committed = list(path.join(root, "proto/gen"));
  const fresh = list(out);
  const problems = [];
  for (const f of new Set([...committed, ...fresh])) {
    const a = committed.includes(f) ? readFileSync(path.join(root, "proto/gen", f), "utf8") : null;
    const b = fresh.includes(f) ? readFileSync(path.join(out, f), "utf8") : null;
    if (a !== b) problems.push(a === null ? `missing: ${f}` : b === null ? `stale: ${f}` : `differs: ${f}`);
  }
  if (problems.length) {
    console.error(`proto/gen is out of date; run \`npm run generate\`:\n  ${problems.join("\n  ")}`);
    process.exit(1);
  }
  console.log(`proto/gen is fresh (${fresh.length} files)`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
