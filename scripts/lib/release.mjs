// Releasing the data (npm run data:release, and npm run data:verify -- --apply after it promotes
// facts): each dataset as it is now becomes a version, the snapshot the changelog
// (GET /api/v1/changes) diffs against: data/changelog/<dataset>/<datasetVersion>.json, naming the
// version before it. Reads the built services and DATA_DIR, afresh on every call.
import fs from "node:fs";
import path from "node:path";
import { loadDataset as loadStormwater, stormwaterDir, stormwaterSnapshot } from "@permits/stormwater";
import { loadDataset as loadNwp, nwpDataDir, nwpSnapshot } from "@permits/nwp";
import { changelogDir, diffFacts, readSnapshots, releaseChain, snapshotText } from "@permits/rules";

/**
 * Writes the snapshot of each dataset whose current version has none; `check` writes nothing and
 * counts that as a problem, as it does a snapshot that no longer matches its version's data.
 * Returns what was done (`released`: each dataset's current version) and the problems, in words.
 */
export function release({ check = false } = {}) {
  const lines = [];
  const problems = [];
  const released = {};
  for (const current of [stormwaterSnapshot(loadStormwater(stormwaterDir())), nwpSnapshot(loadNwp(nwpDataDir()))]) {
    released[current.dataset] = current.datasetVersion;
    const dir = changelogDir(current.dataset);
    const chain = releaseChain(readSnapshots(current.dataset, dir), current.dataset);
    const held = chain.find((s) => s.datasetVersion === current.datasetVersion);
    const file = path.join(dir, `${current.datasetVersion}.json`);
    if (held) {
      const text = snapshotText({ ...current, previousVersion: held.previousVersion });
      if (fs.readFileSync(file, "utf8") === text) lines.push(`${current.dataset} ${current.datasetVersion}: released`);
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
    lines.push(`${current.dataset} ${current.datasetVersion}: written to ${path.relative(process.cwd(), file)} (${summary})`);
  }
  return { lines, problems, released };
}
