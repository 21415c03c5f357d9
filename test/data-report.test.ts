// npm run data:report: docs/data.md's table is its output, it passes on the repository's data, and
// it fails on each kind of internal contradiction (run on a copied data folder via DATA_DIR).
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..");
const script = path.join(root, "scripts/data-report.mjs");
const run = (env: Record<string, string> = {}, args: string[] = []) =>
  spawnSync(process.execPath, [script, ...args], { encoding: "utf8", env: { ...process.env, ...env } });

type Row = {
  code: string;
  statePermits: { id: string; permitNumber: string | null; effectiveDate: string | null; expiryDate: string | null; datesCitation: { quote: string } | null; successorNote: string | null; requirements: unknown[] }[];
  credential: { checkedOn: string };
};

const copies: string[] = [];
afterAll(() => {
  for (const dir of copies) fs.rmSync(dir, { recursive: true, force: true });
});

function copyOfData(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "data-report-"));
  fs.cpSync(path.join(root, "data"), dir, { recursive: true });
  copies.push(dir);
  return dir;
}

function editJurisdictions(dir: string, change: (byCode: (code: string) => Row) => void): void {
  const file = path.join(dir, "stormwater/jurisdictions.json");
  const data = JSON.parse(fs.readFileSync(file, "utf8")) as { jurisdictions: Row[] };
  change((code) => data.jurisdictions.find((j) => j.code === code)!);
  fs.writeFileSync(file, JSON.stringify(data));
}

/** The counts table of a read-out: label to its value text. */
function counts(stdout: string): Record<string, string> {
  const block = stdout.slice(stdout.indexOf("Counts (issue 28)"), stdout.indexOf("Facts by age"));
  return Object.fromEntries([...block.matchAll(/│ ([A-Za-z][^│]*?)\s+│ '([^']*)'/g)].map((m) => [m[1], m[2]]));
}

describe("npm run data:report", () => {
  beforeAll(() => {
    execFileSync("npx", ["tsc", "-b"], { cwd: root, stdio: "ignore" });
  }, 120_000);

  it("passes on the repository's data and prints the read-out", () => {
    const r = run();
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("Facts per basis and confidence");
    expect(r.stdout).toContain("data:report: no contradictions");
  });

  it("docs/data.md's 'What we know' table is its --markdown output (npm run data:readme rewrites it)", () => {
    const table = run({}, ["--markdown"]).stdout.trimEnd();
    const doc = fs.readFileSync(path.join(root, "docs/data.md"), "utf8");
    const block = /<!-- what-we-know:start -->\n([\s\S]*?)\n<!-- what-we-know:end -->/.exec(doc)?.[1];
    expect(block).toBe(table);
  });

  it("fails on an expired permit with no successor note and on a date its quote does not state", () => {
    const dir = copyOfData();
    editJurisdictions(dir, (byCode) => {
      const mo = byCode("MO").statePermits[0];
      mo.expiryDate = "2025-02-07"; // before the evaluation date, and not the date its quote states
      mo.successorNote = null;
    });
    const r = run({ DATA_DIR: dir }, ["--on=2026-11-24"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("stormwater.jurisdictions.MO.mo-mora00000: expired on 2025-02-07 (evaluation date 2026-11-24) with no successor recorded and no note that none is announced");
    expect(r.stderr).toContain("stormwater.jurisdictions.MO.mo-mora00000.expiryDate: 2025-02-07 does not appear in its quote");
  });

  it("prints the issue's counts, and they move with the data", () => {
    const before = counts(run({}, ["--on=2026-11-24"]).stdout);
    expect(Object.keys(before)).toEqual([
      "jurisdictions without a permit number", "state permits without an effective date", "state permits without an expiry date",
      "jurisdictions with no requirement read", "jurisdictions with a permit date held", "largest markets with requirements held",
      "CGP requirements verified",
    ]);
    expect(before["jurisdictions with a permit date held"]).toMatch(/^\d+ of 56$/);
    expect(before["largest markets with requirements held"]).toMatch(/^\d+ of 15 \(/);
    expect(before["CGP requirements verified"]).toMatch(/^\d+ of 14$/);
    const dir = copyOfData();
    // Georgia, one of the fifteen markets, loses every requirement held.
    editJurisdictions(dir, (byCode) => (byCode("GA").statePermits[0].requirements = []));
    const after = counts(run({ DATA_DIR: dir }, ["--on=2026-11-24"]).stdout);
    const n = (c: Record<string, string>, k: string) => Number.parseInt(c[k], 10);
    expect(n(after, "jurisdictions with no requirement read")).toBe(n(before, "jurisdictions with no requirement read") + 1);
    expect(n(after, "largest markets with requirements held")).toBe(n(before, "largest markets with requirements held") - 1);
    expect(after["largest markets with requirements held"]).not.toContain("GA");
    expect(after["jurisdictions without a permit number"]).toBe(before["jurisdictions without a permit number"]);
    // Louisiana's numbers are on its two permits (5 acres or more, 1 to under 5): without them, Louisiana has none.
    editJurisdictions(dir, (byCode) => byCode("LA").statePermits.forEach((p: { permitNumber: string | null }) => (p.permitNumber = null)));
    const unnumbered = counts(run({ DATA_DIR: dir }, ["--on=2026-11-24"]).stdout);
    expect(n(unnumbered, "jurisdictions without a permit number")).toBe(n(before, "jurisdictions without a permit number") + 1);
    // Dates: Missouri loses both of its dates, and with them its place among the dated.
    editJurisdictions(dir, (byCode) => Object.assign(byCode("MO").statePermits[0], { effectiveDate: null, expiryDate: null, datesCitation: null }));
    const undated = counts(run({ DATA_DIR: dir }, ["--on=2026-11-24"]).stdout);
    expect(n(undated, "jurisdictions with a permit date held")).toBe(n(before, "jurisdictions with a permit date held") - 1);
    expect(n(undated, "state permits without an expiry date")).toBe(n(before, "state permits without an expiry date") + 1);
  });

  it("fails on a requirement whose detail does not state its unit", () => {
    const dir = copyOfData();
    editJurisdictions(dir, (byCode) => {
      const q = byCode("CA").statePermits[0].requirements.find((r: { id: string }) => r.id === "corrective.repairs");
      q.detail = q.detail.replace(/72 hours/g, "72");
    });
    const r = run({ DATA_DIR: dir }, ["--on=2026-11-24"]);
    expect(r.status).toBe(1);
    expect(r.stderr + r.stdout).toMatch(/\(corrective\.repairs\): its detail does not state its unit "hours"/);
    editJurisdictions(dir, (byCode) => delete byCode("CA").statePermits[0].requirements.find((r: { id: string }) => r.id === "corrective.repairs").unit);
    expect(run({ DATA_DIR: dir }, ["--on=2026-11-24"]).stderr).toMatch(/\(corrective\.repairs\): a number with no unit/);
  });

  it("fails on a permit number its own citation's quote does not state", () => {
    const dir = copyOfData();
    editJurisdictions(dir, (byCode) => (byCode("OH").statePermits[0].permitNumber = "OHC000007"));
    const r = run({ DATA_DIR: dir }, ["--on=2026-11-24"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("stormwater.jurisdictions.OH.oh-construction-gp.permitNumber: OHC000007 does not appear in its quote");
  });

  it("reads a date in any of the forms a quote writes it, Sept. included", () => {
    const dir = copyOfData();
    editJurisdictions(dir, (byCode) => {
      const mo = byCode("MO").statePermits[0];
      mo.expiryDate = "2027-09-30";
      mo.datesCitation!.quote = "The permit took effect February 8, 2022 and expires Sept. 30, 2027.";
    });
    const ok = run({ DATA_DIR: dir }, ["--on=2026-11-24"]);
    expect(ok.stderr).not.toContain("does not appear in its quote");
    expect(ok.status).toBe(0);
    editJurisdictions(dir, (byCode) => (byCode("MO").statePermits[0].datesCitation!.quote = "The permit took effect February 8, 2022 and expires Sept. 29, 2027."));
    const bad = run({ DATA_DIR: dir }, ["--on=2026-11-24"]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("stormwater.jurisdictions.MO.mo-mora00000.expiryDate: 2027-09-30 does not appear in its quote");
  });

  it("lists facts by the date their source was last read, oldest first, grouped", () => {
    const dir = copyOfData();
    // A reading later than any in the data: the last dated line, GA's credential alone.
    editJurisdictions(dir, (byCode) => (byCode("GA").credential.checkedOn = "2099-12-31"));
    const out = run({ DATA_DIR: dir }, ["--on=2026-11-24"]).stdout;
    const dated = [...out.matchAll(/^ {2}stormwater (\d{4}-\d{2}-\d{2}): (\d+) fact\(s\): (.*)$/gm)];
    expect(dated.length).toBeGreaterThan(1);
    expect(dated.map((m) => m[1])).toEqual(dated.map((m) => m[1]).sort());
    expect(dated.at(-1)!.slice(1)).toEqual(["2099-12-31", "1", "jurisdiction GA (1)"]);
    expect(dated[0][3]).toMatch(/^jurisdiction [A-Z]{2} \(\d+\)/);
  });

  it("flags a permit once its expiry has passed on the evaluation date, until a successor or a note that none is announced is recorded", () => {
    const dir = copyOfData();
    const file = path.join(dir, "stormwater/jurisdictions.json");
    const rows = (JSON.parse(fs.readFileSync(file, "utf8")) as { jurisdictions: Row[] }).jurisdictions;
    // The first held permit to expire with nothing recorded of its successor.
    const [row, permit] = rows.flatMap((j) => j.statePermits.filter((p) => p.expiryDate && !p.successorNote).map((p) => [j, p] as const))
      .sort(([, a], [, b]) => (a.expiryDate! < b.expiryDate! ? -1 : 1))[0];
    const dayAfter = new Date(Date.parse(permit.expiryDate!) + 86_400_000).toISOString().slice(0, 10);
    expect(run({ DATA_DIR: dir }, [`--on=${permit.expiryDate}`]).status).toBe(0); // its last day
    const expired = run({ DATA_DIR: dir }, [`--on=${dayAfter}`]);
    expect(expired.status).toBe(1);
    expect(expired.stderr).toContain(`stormwater.jurisdictions.${row.code}.${permit.id}: expired on ${permit.expiryDate} (evaluation date ${dayAfter})`);
    expect(run({ DATA_DIR: dir, EVALUATION_DATE: dayAfter }).status).toBe(1); // the services' variable sets it too
    // npm test evaluates at the data's own date (asOf), so the calendar alone never fails the suite.
    expect(run({ DATA_DIR: dir, EVALUATION_DATE: dayAfter }, ["--on=asOf"]).status).toBe(0);
    editJurisdictions(dir, (byCode) => (byCode(row.code).statePermits.find((p) => p.id === permit.id)!.successorNote = "No successor permit announced on the agency's page."));
    expect(run({ DATA_DIR: dir }, [`--on=${dayAfter}`]).status).toBe(0);
    expect(run({}, ["--on=24/11/2026"]).status).toBe(2);
  });

  it("fails on an unchangedBy that names no official source, and passes one that names a government URL", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "data-report-"));
    fs.cpSync(path.join(root, "data"), dir, { recursive: true });
    const file = path.join(dir, "nwp/permits.json");
    const permits = JSON.parse(fs.readFileSync(file, "utf8"));
    const limit = permits.find((p: { number: number }) => p.number === 29).acreageLimits[0];
    limit.unchangedBy = "A consultant's page (https://www.wetlands.com/2026-final-nwps) says NWP 29 did not change.";
    fs.writeFileSync(file, JSON.stringify(permits));
    const r = run({ DATA_DIR: dir });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("nwp.permits[27].acreageLimits[0].unchangedBy: names no official source by its government URL");
    limit.unchangedBy = "The 2026 rule (https://www.govinfo.gov/content/pkg/FR-2026-01-08/html/2026-00121.htm) keeps the 1/2-acre limit.";
    fs.writeFileSync(file, JSON.stringify(permits));
    expect(run({ DATA_DIR: dir }).status).toBe(0);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
