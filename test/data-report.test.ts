// npm run data:report: the README's table is its output, it passes on the repository's data, and
// it fails on each kind of internal contradiction (run on a copied data folder via DATA_DIR).
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..");
const script = path.join(root, "scripts/data-report.mjs");
const run = (env: Record<string, string> = {}, args: string[] = []) =>
  spawnSync(process.execPath, [script, ...args], { encoding: "utf8", env: { ...process.env, ...env } });

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

  it("the README's 'What we know' table is its --markdown output (npm run data:readme rewrites it)", () => {
    const table = run({}, ["--markdown"]).stdout.trimEnd();
    const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");
    const block = /<!-- what-we-know:start -->\n([\s\S]*?)\n<!-- what-we-know:end -->/.exec(readme)?.[1];
    expect(block).toBe(table);
  });

  it("fails on an expired permit with no successor note and on a date its quote does not state", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "data-report-"));
    fs.cpSync(path.join(root, "data"), dir, { recursive: true });
    const file = path.join(dir, "stormwater/jurisdictions.json");
    const data = JSON.parse(fs.readFileSync(file, "utf8"));
    const mo = data.jurisdictions.find((j: { code: string }) => j.code === "MO").statePermits[0];
    mo.expiryDate = "2025-02-07"; // before asOf, and not the date its quote states
    mo.successorNote = null;
    fs.writeFileSync(file, JSON.stringify(data));
    const r = run({ DATA_DIR: dir });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("stormwater.jurisdictions.MO.mo-mora00000: expired on 2025-02-07 with no successor note");
    expect(r.stderr).toContain("stormwater.jurisdictions.MO.mo-mora00000.expiryDate: 2025-02-07 does not appear in its quote");
    fs.rmSync(dir, { recursive: true, force: true });
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
