// The fact index and the changelog built from it: what a fact is, what counts as a change, and
// the release chain's rules.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildChangelog, diffFacts, readSnapshots, releaseChain, snapshotText, withCurrent, type Snapshot } from "./changelog.js";
import { factIndex, factsByAge, lastCheckedByGroup } from "./fact-index.js";

const cite = (checkedOn: string, extra: Record<string, unknown> = {}) => ({ sourceCitation: "Part 4", sourceUrl: "https://www.epa.gov/x", confidence: "unverified", basis: "secondary", checkedOn, ...extra });
const data = (value: number, checkedOn = "2026-11-21") => ({
  rows: [
    { code: "TX", name: "Texas", routes: [], confidence: "verified", basis: "official-text", authorityCitation: cite("2026-11-20", { basis: "official-text", confidence: "verified", quote: "TCEQ" }), requirements: [{ id: "inspection", value, citation: cite(checkedOn) }] },
    { code: "OH", name: "Ohio", confidence: "unverified", basis: "unsourced", authorityCitation: null },
  ],
});
const groupOf = (p: readonly string[]) => ({ kind: "jurisdiction", id: p[1] });
const snap = (datasetVersion: string, previousVersion: string | null, facts = factIndex(data(7), groupOf)): Snapshot => ({ dataset: "stormwater", datasetVersion, previousVersion, facts });

describe("factIndex", () => {
  const index = factIndex(data(7), groupOf);
  it("keys facts by ids; a bare citation of a record is that record's fact, with the record's fields as its value", () => {
    expect(Object.keys(index).sort()).toEqual(["rows/OH", "rows/TX", "rows/TX/requirements/inspection/citation"]);
    expect(index["rows/TX/requirements/inspection/citation"]).toEqual({
      group: { kind: "jurisdiction", id: "TX" }, value: { id: "inspection", value: 7 }, basis: "secondary", confidence: "unverified",
      checkedOn: "2026-11-21", sourceCitation: "Part 4", sourceUrl: "https://www.epa.gov/x",
    });
  });
  it("facts by age: oldest date first, counted per group, the undated last", () => {
    expect(factsByAge(index)).toEqual([
      { checkedOn: "2026-11-20", count: 1, groups: [{ kind: "jurisdiction", id: "TX", count: 1 }] },
      { checkedOn: "2026-11-21", count: 1, groups: [{ kind: "jurisdiction", id: "TX", count: 1 }] },
      { checkedOn: null, count: 1, groups: [{ kind: "jurisdiction", id: "OH", count: 1 }] },
    ]);
  });
  it("a row's own citation is its source (not a second fact); a row with none has no date", () => {
    expect(index["rows/TX"]).toMatchObject({ value: { code: "TX", name: "Texas" }, checkedOn: "2026-11-20", quote: "TCEQ", basis: "official-text" });
    expect(index["rows/OH"]).toMatchObject({ checkedOn: null, basis: "unsourced" });
    expect(lastCheckedByGroup(index)).toEqual(new Map([["jurisdiction/TX", "2026-11-21"]]));
  });
});

describe("diffFacts and the chain", () => {
  it("a changed value is a change; a later checkedOn alone is a re-read, not a change", () => {
    const before = factIndex(data(7), groupOf);
    expect(diffFacts(before, factIndex(data(7, "2026-11-25"), groupOf))).toEqual({ changes: [], rechecked: 1 });
    const { changes } = diffFacts(before, factIndex(data(14, "2026-11-25"), groupOf));
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ fact: "rows/TX/requirements/inspection/citation", change: "changed", before: { value: { value: 7 } }, after: { value: { value: 14 }, checkedOn: "2026-11-25" } });
  });
  it("orders versions by the one each follows; refuses a fork and an unlinked snapshot", () => {
    expect(releaseChain([snap("b", "a"), snap("a", null)], "stormwater").map((s) => s.datasetVersion)).toEqual(["a", "b"]);
    expect(() => releaseChain([snap("a", null), snap("b", "a"), snap("c", "a")], "stormwater")).toThrow(/both follow a/);
    expect(() => releaseChain([snap("a", null), snap("c", "b")], "stormwater")).toThrow(/not linked/);
  });
  it("the loaded data is the newest version: appended when unreleased, and the versions after it dropped when older data is loaded", () => {
    const chain = [snap("a", null), snap("b", "a")];
    expect(withCurrent(chain, snap("c", null)).map((s) => [s.datasetVersion, s.previousVersion])).toEqual([["a", null], ["b", "a"], ["c", "b"]]);
    expect(withCurrent(chain, snap("a", null)).map((s) => s.datasetVersion)).toEqual(["a"]);
  });
  it("answers for every version, the changes after it grouped, in version order", () => {
    const answers = buildChangelog("stormwater", [snap("a", null), snap("b", "a", factIndex(data(14), groupOf)), snap("c", "b", factIndex(data(21), groupOf))]);
    const fromA = answers.get("a")!;
    expect(fromA.changeCount).toBe(2);
    expect(fromA.versions.map((v) => [v.datasetVersion, v.changeCount])).toEqual([["b", 1], ["c", 1]]);
    expect(fromA.groups.map((g) => [g.id, g.changes.map((c) => c.datasetVersion)])).toEqual([["TX", ["b", "c"]]]);
    expect(answers.get("c")!.groups).toEqual([]);
  });
});

describe("readSnapshots", () => {
  it("reads a folder of snapshots and refuses a file that is not one", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "snapshots-"));
    try {
      fs.writeFileSync(path.join(dir, "a.json"), snapshotText(snap("a", null)));
      expect(readSnapshots("stormwater", dir).map((s) => s.datasetVersion)).toEqual(["a"]);
      expect(readSnapshots("stormwater", path.join(dir, "none"))).toEqual([]);
      fs.writeFileSync(path.join(dir, "b.json"), snapshotText({ ...snap("b", "a"), facts: { x: { basis: "rumour" } } as never }));
      expect(() => readSnapshots("stormwater", dir)).toThrow("stormwater changelog b.json: fact x is not a fact record");
      fs.writeFileSync(path.join(dir, "b.json"), snapshotText(snap("c", "a")));
      expect(() => readSnapshots("stormwater", dir)).toThrow("names stormwater c");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
