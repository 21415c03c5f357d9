import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createValidator, DATA_FILES, loadRawDataset, nwpDataDir, type DataFileKey } from "./dataset.js";
import { isGovUrl, realDataset, urlsIn } from "./test-support.js";

const dir = nwpDataDir();
const read = (k: DataFileKey) => JSON.parse(fs.readFileSync(path.join(dir, DATA_FILES[k]), "utf8"));
const validator = createValidator(dir);

describe("data/nwp schemas", () => {
  for (const k of Object.keys(DATA_FILES) as DataFileKey[]) {
    it(`${DATA_FILES[k]} matches its schema`, () => {
      expect(validator.validate(k, read(k))).toEqual([]);
    });
  }

  it("rejects a district whose conditions claim to be compiled", () => {
    const districts = read("districts");
    districts[0].conditionsCompiled = true;
    expect(validator.validate("districts", districts).length).toBeGreaterThan(0);
  });

  it("rejects a non-government or plain-http source URL", () => {
    const permits = read("permits");
    permits[0].sourceUrl = "https://www.example.com/nwp";
    expect(validator.validate("permits", permits).length).toBeGreaterThan(0);
    permits[0].sourceUrl = "http://www.usace.army.mil/";
    expect(validator.validate("permits", permits).length).toBeGreaterThan(0);
  });

  it("rejects a reserved NWP number and an activity confidence other than verify", () => {
    const permits = read("permits");
    permits[0].number = 26;
    expect(validator.validate("permits", permits).length).toBeGreaterThan(0);
    const activities = read("activities");
    activities[0].confidence = "verified";
    expect(validator.validate("activities", activities).length).toBeGreaterThan(0);
  });

  it("loads and compiles without error", () => {
    expect(() => loadRawDataset(dir)).not.toThrow();
  });
});

describe("dataset contents", () => {
  const ds = realDataset();

  it("pins the counts: 57 permits, 38 districts, 15 activities, 56 states and territories", () => {
    expect(ds.raw.permits).toHaveLength(57);
    expect(ds.ruleset.permitCount).toBe(57);
    expect(ds.raw.districts).toHaveLength(38);
    expect(ds.raw.activities).toHaveLength(15);
    expect(ds.raw.states).toHaveLength(56);
    for (const c of ["DC", "PR", "VI", "GU", "AS", "MP"]) expect(ds.statesByCode.has(c)).toBe(true);
  });

  it("numbers the permits 1 to 60 without 26, 47 and 56", () => {
    const expected = Array.from({ length: 60 }, (_, i) => i + 1).filter((n) => ![26, 47, 56].includes(n));
    expect(ds.raw.permits.map((p) => p.number)).toEqual(expected);
    expect([...ds.reservedByNumber.keys()].sort((a, b) => a - b)).toEqual([26, 47, 56]);
  });

  it("identifies the 2026 ruleset", () => {
    expect(ds.ruleset).toMatchObject({ id: "nwp-2026", federalRegisterCitation: "91 FR 768", effectiveDate: "2026-03-15", expiryDate: "2031-03-15" });
    expect(ds.ruleset.pcnReview.reviewDays).toBe(45);
  });

  it("keeps the contract's 38 district codes (the Caribbean District is a gap, not a code)", () => {
    expect(ds.districtCodes).not.toContain("SAA");
    for (const d of ds.raw.districts) {
      expect(d.conditionsCompiled).toBe(false);
      expect(d.regionalConditions).toEqual([]);
    }
    expect(ds.raw.states.find((s) => s.code === "PR")?.handlingOffice?.text).toMatch(/Caribbean District/);
  });

  it("has 15 kebab-case activities, each screened against present permits with confidence verify", () => {
    for (const a of ds.raw.activities) {
      expect(a.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(a.confidence).toBe("verify");
      for (const n of a.nwpNumbers) expect(ds.permitsByNumber.has(n)).toBe(true);
    }
    for (const id of ["residential-development", "utility-line", "road-crossing", "bank-stabilization"]) expect(ds.activityIds).toContain(id);
  });

  it("marks every held permit limit unverified (the 2026 permit text was not read)", () => {
    for (const p of ds.raw.permits) {
      for (const l of [...p.acreageLimits, ...(p.streamBedLinearFeetLimit ? [p.streamBedLinearFeetLimit] : [])]) {
        expect(l.confidence).toBe("unverified");
        expect(l.derivation).toMatch(/91 FR 768/);
      }
      for (const c of p.pcnConditions) expect(c.confidence).toBe("unverified");
    }
  });

  it("holds no limit the reference marks UNCONFIRMED (e.g. NWPs 21, 40, 43, 44, 51, 60)", () => {
    for (const n of [21, 40, 43, 44, 50, 51, 52, 60]) expect(ds.permitsByNumber.get(n)!.raw.acreageLimits).toEqual([]);
    for (const n of [12, 14, 29, 39, 42, 57, 58]) expect(ds.permitsByNumber.get(n)!.raw.acreageLimits.length).toBeGreaterThan(0);
  });

  it("uses only https URLs on government domains, in every data file", () => {
    const urls = (Object.keys(DATA_FILES) as DataFileKey[]).flatMap((k) => urlsIn(read(k)));
    expect(urls.length).toBeGreaterThan(100);
    const bad = urls.filter((u) => !isGovUrl(u));
    expect(bad).toEqual([]);
  });
});
