import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { buildDataset, DATA_FILES, datasetVersionOf, loadDataset, readStormwaterFiles, schemaValidators, stormwaterDir } from "./dataset.js";

const files = readStormwaterFiles();
const parsed = (f: string) => JSON.parse(files.get(`${f}.json`)!);
const ALL_CODES = [
  "AK", "AL", "AR", "AS", "AZ", "CA", "CO", "CT", "DC", "DE", "FL", "GA", "GU", "HI", "IA", "ID", "IL", "IN", "KS", "KY", "LA", "MA",
  "MD", "ME", "MI", "MN", "MO", "MP", "MS", "MT", "NC", "ND", "NE", "NH", "NJ", "NM", "NV", "NY", "OH", "OK", "OR", "PA", "PR", "RI",
  "SC", "SD", "TN", "TX", "UT", "VA", "VI", "VT", "WA", "WI", "WV", "WY",
];

describe("JSON Schema of each data file", () => {
  const validators = schemaValidators(files);
  test.each(DATA_FILES)("%s.json is valid against schemas/%s.schema.json", (f) => {
    const v = validators.get(f)!;
    const ok = v(parsed(f));
    expect(v.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  const jur = validators.get("jurisdictions")!;
  const withRow = (mutate: (row: Record<string, any>) => void) => {
    const doc = parsed("jurisdictions");
    mutate(doc.jurisdictions.find((j: { code: string }) => j.code === "AR"));
    return jur(doc);
  };
  test.each([
    ["an unverified row with an open gate", (r: any) => { r.credential.gate = "open"; }],
    ["an unverified row with a gated gate", (r: any) => { r.credential.gate = "gated"; }],
    ["an unverified state row asserting a permit number", (r: any) => { r.permitNumber = "ARR150000"; }],
    ["a non-government source URL", (r: any) => { r.sourceUrl = "https://aqualisco.com/compliance_item/state-of-arkansas"; }],
    ["an unverified row without a note naming whom to confirm with", (r: any) => { r.note = null; }],
    ["an unknown field", (r: any) => { r.extra = 1; }],
    ["a credential without the date its source was last read", (r: any) => { delete r.credential.checkedOn; }],
    ["a credential checked on a date that is not yyyy-mm-dd", (r: any) => { r.credential.checkedOn = "21/11/2026"; }],
  ])("rejects %s", (_label, mutate) => {
    expect(withRow(mutate)).toBe(false);
  });

  test("rejects a citation without checkedOn (the date its source was last read)", () => {
    const doc = parsed("cgp-requirements");
    delete doc.requirements[0].citation.checkedOn;
    expect(validators.get("cgp-requirements")!(doc)).toBe(false);
  });

  test("rejects a citation on a non-government host in cgp-requirements.json", () => {
    const doc = parsed("cgp-requirements");
    doc.requirements[0].citation.sourceUrl = "https://contohmemo.jagomart.net/item/30393/site-inspection-report-template";
    expect(validators.get("cgp-requirements")!(doc)).toBe(false);
  });
});

describe("jurisdiction coverage", () => {
  test("holds exactly the 56 codes: 50 states, DC, PR, GU, AS, MP, VI", () => {
    const codes = parsed("jurisdictions").jurisdictions.map((j: { code: string }) => j.code).sort();
    expect(codes).toEqual(ALL_CODES);
    expect(loadDataset().codes).toEqual(ALL_CODES);
  });

  test("EPA areas are MA, NH, NM, DC and the territories except VI", () => {
    const epa = parsed("jurisdictions").jurisdictions.filter((j: { authority: string }) => j.authority === "epa").map((j: { code: string }) => j.code).sort();
    expect(epa).toEqual(["AS", "DC", "GU", "MA", "MP", "NH", "NM", "PR"]);
    expect(parsed("epa-areas").federalFacilities.codes).toEqual(["CO", "DE", "VT", "WA"]);
  });
});

describe("every URL in the data is on a government domain", () => {
  const GOV = /^https?:\/\/(?:[a-z0-9-]+\.)+(?:gov|mil|state\.[a-z]{2}\.us)(?::\d+)?(?:[/?#]|$)/;
  const urls: string[] = [];
  // Provenance says where a text was actually read (a mirror, a town's records system): it is
  // the one place a non-government address belongs, and it is never served as a source.
  const WHERE_READ = new Set(["provenance", "unchangedBy"]);
  const walk = (v: unknown) => {
    if (typeof v === "string") {
      for (const m of v.matchAll(/https?:\/\/[^\s"')]+/g)) urls.push(m[0]);
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) if (!WHERE_READ.has(k)) walk(x);
  };
  for (const f of DATA_FILES) walk(parsed(f));
  test("there are URLs to check", () => expect(urls.length).toBeGreaterThan(100));
  test.each([...new Set(urls)])("%s", (u) => expect(u).toMatch(GOV));
});

describe("datasetVersion", () => {
  test("is the asOf date plus a short content hash, identical for identical files", () => {
    const a = loadDataset();
    const b = loadDataset();
    expect(a.version).toMatch(/^2026-11-28\.[0-9a-f]{10}$/);
    expect(b.version).toBe(a.version);
  });

  test("changes whenever any file changes", () => {
    const changed = new Map(files);
    changed.set("permits.json", files.get("permits.json")!.replace("2022 CGP (effective", "2022 CGP  (effective"));
    expect(datasetVersionOf("2026-11-21", changed)).not.toBe(datasetVersionOf("2026-11-21", files));
    const schemaChanged = new Map(files);
    schemaChanged.set("schemas/common.schema.json", files.get("schemas/common.schema.json")! + " ");
    expect(datasetVersionOf("2026-11-21", schemaChanged)).not.toBe(datasetVersionOf("2026-11-21", files));
  });

  test("a copied folder loads to the same version; an invalid file is refused at load", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sw-"));
    fs.cpSync(stormwaterDir(), dir, { recursive: true });
    expect(loadDataset(dir).version).toBe(loadDataset().version);
    const bad = JSON.parse(fs.readFileSync(path.join(dir, "jurisdictions.json"), "utf8"));
    bad.jurisdictions[0].credential.gate = "wide-open";
    fs.writeFileSync(path.join(dir, "jurisdictions.json"), JSON.stringify(bad));
    expect(() => loadDataset(dir)).toThrow(/schema validation/);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test("buildDataset refuses a file set without the manifest", () => {
    const m = new Map(files);
    m.delete("manifest.json");
    expect(() => buildDataset(m)).toThrow(/manifest.json is missing/);
  });
});
