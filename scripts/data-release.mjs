#!/usr/bin/env node
// npm run data:release: records each dataset as it is now as a released version, the snapshot
// the changelog (GET /api/v1/changes) diffs against: data/changelog/<dataset>/<datasetVersion>.json,
// naming the version before it. Run it once the data of a release is final, and commit the files.
// `--check` writes nothing and exits 1 when the data's current version has no snapshot, or its
// snapshot no longer matches the data. Reads the built services (npm run build) and DATA_DIR.
import fs from "node:fs";
import path from "node:path";
import { loadDataset as loadStormwater, stormwaterSnapshot } from "@permits/stormwater";
import { loadDataset as loadNwp, nwpSnapshot } from "@permits/nwp";
import { changelogDir, diffFacts, readSnapshots, releaseChain, snapshotText } from "@permits/rules";

const check = process.argv.includes("--check");
const problems = [];

for (const current of [stormwaterSnapshot(loadStormwater()), nwpSnapshot(loadNwp())]) {
  const dir = changelogDir(current.dataset);
  const chain = releaseChain(readSnapshots(current.dataset, dir), current.dataset);
  const released = chain.find((s) => s.datasetVersion === current.datasetVersion);
  const file = path.join(dir, `${current.datasetVersion}.json`);
  if (released) {
    const text = snapshotText({ ...current, previousVersion: released.previousVersion });
    if (fs.readFileSync(file, "utf8") === text) console.log(`${current.dataset} ${current.datasetVersion}: released`);
    else problems.push(`${path.relative(process.cwd(), file)} does not match the data of that version (the fact index changed): regenerate it (delete it, npm run data:release)`);
    continue;
  }
  const previous = chain.at(-1) ?? null;
  const snapshot = { ...current, previousVersion: previous?.datasetVersion ?? null };
  const { changes, rechecked } = diffFacts(previous?.facts ?? {}, snapshot.facts);
  const count = (k) => changes.filter((c) => c.change === k).length;
  const summary = `${Object.keys(snapshot.facts).length} facts; against ${previous?.datasetVersion ?? "nothing"}: ${count("added")} added, ${count("changed")} changed, ${count("removed")} removed, ${rechecked} re-read`;
  if (check) {
    problems.push(`${current.dataset} ${current.datasetVersion} has no snapshot in ${path.relative(process.cwd(), dir)} (${summary}): run npm run data:release and commit it`);
    continue;
  }
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(file, snapshotText(snapshot));
  console.log(`${current.dataset} ${current.datasetVersion}: written to ${path.relative(process.cwd(), file)} (${summary})`);
}
if (problems.length > 0) {
  console.error(problems.map((p) => `data:release: ${p}`).join("\n"));
  process.exit(1);
}
