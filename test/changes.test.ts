// GET /api/v1/changes across two dataset versions built here: a copy of data/ is released as the
// first version (npm run data:release on DATA_DIR), then edited (a value changed, a requirement
// added, an NWP condition removed, a source re-read) to make the second, which the services load.
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmbedded, type Embedded } from "./support/embedded.js";

const root = path.resolve(import.meta.dirname, "..");
const release = (args: string[] = []) => spawnSync(process.execPath, [path.join(root, "scripts/data-release.mjs"), ...args], { encoding: "utf8", env: { ...process.env, DATA_DIR: dir } });
let dir: string;
let gw: Embedded;
let v1: { stormwater: string; nwp: string };
let v2: { stormwater: string; nwp: string };
/** What the edits changed, read from the data so that new research does not break the test. */
let changed: { code: string; fact: string; value: number; basis: string; checkedOn: string };
let removedCondition: string;
let txPermit: string;
let v1Facts: number;

const edit = (file: string, change: (data: any) => void) => { // eslint-disable-line @typescript-eslint/no-explicit-any
  const f = path.join(dir, file);
  const data = JSON.parse(fs.readFileSync(f, "utf8"));
  change(data);
  fs.writeFileSync(f, JSON.stringify(data, null, 2));
};
const versionsIn = (text: string) => Object.fromEntries([...text.matchAll(/^(stormwater|nwp) (\S+):/gm)].map((m) => [m[1], m[2]])) as typeof v1;
const TX_INSPECTION = {
  id: "inspection.changelogTest", kind: "inspection", label: "Inspection frequency", unit: "calendar days", value: 7,
  detail: "Inspect at least once every 7 calendar days.",
  citation: { sourceCitation: "TXR150000, Part III.F.7 (as a consultant states it)", sourceUrl: "https://www.tceq.texas.gov/assistance/water/stormwater/sw-construction.html", confidence: "unverified", basis: "secondary", checkedOn: "2026-11-25", provenance: "A consultant's summary." },
};

it("the repository's data has its released snapshot (npm run data:release --check)", () => {
  execFileSync("npx", ["tsc", "-b"], { cwd: root, stdio: "ignore" });
  const check = spawnSync(process.execPath, [path.join(root, "scripts/data-release.mjs"), "--check"], { encoding: "utf8", env: { ...process.env, DATA_DIR: path.join(root, "data") } });
  expect(check.stderr).toBe("");
  expect(check.status).toBe(0);
}, 120_000);

describe("GET /api/v1/changes, two dataset versions", () => {
  beforeAll(async () => {
    execFileSync("npx", ["tsc", "-b"], { cwd: root, stdio: "ignore" });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "changes-"));
    fs.cpSync(path.join(root, "data"), dir, { recursive: true });
    fs.rmSync(path.join(dir, "changelog"), { recursive: true, force: true });
    const first = release();
    expect(first.status, first.stderr).toBe(0);
    v1 = versionsIn(first.stdout);
    v1Facts = Object.keys(JSON.parse(fs.readFileSync(path.join(dir, "changelog/stormwater", `${v1.stormwater}.json`), "utf8")).facts).length;
    edit("stormwater/jurisdictions.json", (d) => {
      const byCode = (c: string) => d.jurisdictions.find((j: { code: string }) => j.code === c);
      // The first state requirement held with a number: its value moves by 7.
      for (const j of d.jurisdictions) {
        for (const p of j.statePermits) {
          const q = p.requirements.find((r: { value?: unknown }) => typeof r.value === "number");
          if (!q || changed) continue;
          changed = { code: j.code, fact: `jurisdictions/${j.code}/statePermits/${p.id}/requirements/${q.id}/citation`, value: q.value, basis: q.citation.basis, checkedOn: q.citation.checkedOn };
          q.value += 7;
        }
      }
      txPermit = byCode("TX").statePermits[0].id;
      byCode("TX").statePermits[0].requirements.push(TX_INSPECTION);
      byCode("GA").credential.checkedOn = "2026-12-31"; // re-read, nothing else changed
    });
    edit("nwp/permits.json", (d) => {
      const conditions = d.find((p: { number: number }) => p.number === 29).pcnConditions;
      removedCondition = `permits/29/pcnConditions/${conditions.length - 1}`;
      conditions.pop();
    });
    process.env.DATA_DIR = dir; // the services read their data from DATA_DIR
    gw = await startEmbedded();
    const coverage = (await gw.app.inject({ method: "GET", url: "/api/v1/coverage" })).json().data;
    v2 = { stormwater: coverage.stormwater.datasetVersion, nwp: coverage.nwp.datasetVersion };
  }, 180_000);
  afterAll(async () => {
    await gw?.close();
    delete process.env.DATA_DIR;
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const changes = (query: string) => gw.app.inject({ method: "GET", url: `/api/v1/changes${query}` });

  it("the edited data is a new version of each dataset, not yet released (data:release --check fails naming it)", () => {
    expect(v2.stormwater).not.toBe(v1.stormwater);
    expect(v2.nwp).not.toBe(v1.nwp);
    const check = release(["--check"]);
    expect(check.status).toBe(1);
    expect(check.stderr).toContain(`stormwater ${v2.stormwater} has no snapshot`);
    expect(check.stderr).toContain(`nwp ${v2.nwp} has no snapshot`);
  });

  it("since the first stormwater version: the changed value and the added requirement, each with before and after, grouped by jurisdiction", async () => {
    const res = await changes(`?since=${v1.stormwater}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers["x-ratelimit-limit"]).toBeUndefined();
    const body = res.json();
    expect(Object.keys(body)).toEqual(expect.arrayContaining(["data", "request_id", "disclaimer"]));
    const d = body.data;
    expect(d).toMatchObject({ dataset: "stormwater", since: v1.stormwater, currentVersion: v2.stormwater, changeCount: 2 });
    expect(d.versions).toEqual([{ datasetVersion: v2.stormwater, previousVersion: v1.stormwater, factCount: v1Facts + 1, changeCount: 2, recheckedCount: 1 }]);
    expect(d.groups.map((g: { kind: string; id: string }) => `${g.kind} ${g.id}`)).toEqual([`jurisdiction ${changed.code}`, "jurisdiction TX"].sort());
    const byId = (id: string) => d.groups.find((g: { id: string }) => g.id === id);
    const [value, tx] = [byId(changed.code), byId("TX")];
    expect(value.changes).toHaveLength(1);
    expect(value.changes[0]).toMatchObject({ fact: changed.fact, change: "changed", datasetVersion: v2.stormwater });
    expect(value.changes[0].before).toMatchObject({ basis: changed.basis, checkedOn: changed.checkedOn, value: { value: changed.value } });
    expect(value.changes[0].after).toMatchObject({ basis: changed.basis, checkedOn: changed.checkedOn, value: { value: changed.value + 7 } });
    expect(tx.changes).toEqual([{
      fact: `jurisdictions/TX/statePermits/${txPermit}/requirements/inspection.changelogTest/citation`,
      change: "added",
      datasetVersion: v2.stormwater,
      before: null,
      after: {
        value: { id: "inspection.changelogTest", kind: "inspection", label: "Inspection frequency", unit: "calendar days", value: 7, detail: "Inspect at least once every 7 calendar days." },
        basis: "secondary", confidence: "unverified", checkedOn: "2026-11-25",
        sourceCitation: TX_INSPECTION.citation.sourceCitation, sourceUrl: TX_INSPECTION.citation.sourceUrl, quote: null,
      },
    }]);
  });

  it("since an NWP version: the removed PCN condition, grouped by nationwide permit", async () => {
    const d = (await changes(`?since=${v1.nwp}`)).json().data;
    expect(d).toMatchObject({ dataset: "nwp", since: v1.nwp, currentVersion: v2.nwp, changeCount: 1 });
    expect(d.groups).toHaveLength(1);
    expect(d.groups[0]).toMatchObject({ kind: "nwp", id: "29" });
    expect(d.groups[0].changes[0]).toMatchObject({ fact: removedCondition, change: "removed", after: null, before: { value: { kind: expect.any(String) } } });
  });

  it("since the current version: no changes", async () => {
    const d = (await changes(`?since=${v2.stormwater}`)).json().data;
    expect(d).toEqual({ dataset: "stormwater", since: v2.stormwater, currentVersion: v2.stormwater, versions: [], changeCount: 0, groups: [] });
  });

  it("an unknown or missing version is invalid_request naming every known version", async () => {
    const known = [v1.stormwater, v2.stormwater, v1.nwp, v2.nwp];
    const unknown = await changes("?since=2020-01-01.0000000000");
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error).toMatchObject({ code: "invalid_request", details: { field: "since", known_values: known } });
    expect(unknown.json().error.message).toContain("is not a known dataset version");
    const missing = await changes("");
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toMatchObject({ code: "invalid_request", details: { known_values: known } });
    const extra = await changes(`?since=${v1.stormwater}&until=x`);
    expect(extra.json().error).toMatchObject({ code: "invalid_request", details: { unknown_keys: ["until"] } });
  });

  it("listed in the discovery index and the OpenAPI document", async () => {
    const index = (await gw.app.inject({ method: "GET", url: "/api/v1" })).json();
    expect(index.data.endpoints.some((e: { path: string }) => e.path === "/api/v1/changes")).toBe(true);
    const doc = (await gw.app.inject({ method: "GET", url: "/api/openapi" })).json();
    expect(doc.paths["/api/v1/changes"].get.parameters).toEqual([expect.objectContaining({ name: "since", in: "query", required: true })]);
    expect(doc.components.schemas.CommonFactChange.properties.change.enum).toEqual(["added", "changed", "removed"]);
  });

  it("released, the second version's snapshot gives the same answer (data:release writes it, --check then passes)", async () => {
    const second = release();
    expect(second.status, second.stderr).toBe(0);
    expect(second.stdout).toContain(`stormwater ${v2.stormwater}: written`);
    expect(release(["--check"]).status).toBe(0);
    const snapshot = JSON.parse(fs.readFileSync(path.join(dir, "changelog/stormwater", `${v2.stormwater}.json`), "utf8"));
    expect(snapshot.previousVersion).toBe(v1.stormwater);
    expect(snapshot.facts[`jurisdictions/TX/statePermits/${txPermit}/requirements/inspection.changelogTest/citation`].checkedOn).toBe("2026-11-25");
  });
});
