#!/usr/bin/env node
// npm run data:release: records each dataset as it is now as a released version, the snapshot
// the changelog (GET /api/v1/changes) diffs against: data/changelog/<dataset>/<datasetVersion>.json,
// naming the version before it. Run it once the data of a release is final, and commit the files.
// `--check` writes nothing and exits 1 when the data's current version has no snapshot, or its
// snapshot no longer matches the data. Reads the built services (npm run build) and DATA_DIR.
// The rule itself is scripts/lib/release.mjs, which npm run data:verify -- --apply reuses.
import { release } from "./lib/release.mjs";

const { lines, problems } = release({ check: process.argv.includes("--check") });
for (const line of lines) console.log(line);
if (problems.length > 0) {
  console.error(problems.map((p) => `data:release: ${p}`).join("\n"));
  process.exit(1);
}
