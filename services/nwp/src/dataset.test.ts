import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createValidator, DATA_FILES, loadRawDataset, nwpDataDir, type DataFileKey } from "./dataset.js";
import { isGovUrl, realDataset, urlsIn } from "./testing.js";

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

  it("rejects a limit, PCN condition or terms without checkedOn (the date its source was last read)", () => {
    for (const strip of [(p: any) => delete p.acreageLimits[0].checkedOn, (p: any) => delete p.pcnConditions[0].checkedOn, (p: any) => delete p.notification.checkedOn]) {
      const permits = read("permits");
      strip(permits.find((p: any) => p.number === 29));
      expect(validator.validate("permits", permits).some((e) => e.includes("checkedOn"))).toBe(true);
    }
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

  it("marks every held limit and PCN term unverified, each on a basis that cannot be verified (the 2026 text was not read)", () => {
    for (const p of ds.raw.permits) {
      for (const f of [...p.acreageLimits, ...(p.streamBedLinearFeetLimit ? [p.streamBedLinearFeetLimit] : []), ...p.pcnConditions, p.notification]) {
        expect(f.confidence).toBe("unverified");
        expect(["prior-edition", "secondary", "unsourced"]).toContain(f.basis);
      }
    }
  });

  it("holds limit terms for every permit but 48, 49, 53 and 55 (no belief held), each at its basis", () => {
    expect(ds.raw.permits.filter((p) => !p.limitTerms.held).map((p) => p.number)).toEqual([48, 49, 53, 55]);
    expect(ds.permitsByNumber.get(1)!.raw.limitTerms).toMatchObject({ held: true, basis: "prior-edition", summary: "No loss limit: a Section 10 permit only." });
    for (const p of ds.raw.permits) expect(["prior-edition", "secondary", "unsourced"]).toContain(p.limitTerms.basis);
  });

  it("holds notification terms for every permit but NWP 60, each at its basis; NWPs 29 and 39 need a PCN for every activity", () => {
    expect(ds.raw.permits.filter((p) => !p.notification.held).map((p) => p.number)).toEqual([60]);
    for (const n of [29, 39]) expect(ds.permitsByNumber.get(n)!.raw.pcnConditions.map((c) => [c.kind, c.basis])).toEqual([["always", "unsourced"]]);
  });

  it("holds a limit the reference marks UNCONFIRMED only at basis unsourced (NWPs 21, 43, 44, 50, 51, 52), none for NWP 60", () => {
    for (const n of [21, 43, 44, 50, 51, 52]) expect(ds.permitsByNumber.get(n)!.raw.acreageLimits.map((l) => l.basis)).toEqual(["unsourced"]);
    expect(ds.permitsByNumber.get(60)!.raw.acreageLimits).toEqual([]);
    for (const n of [12, 14, 29, 39, 42, 57, 58]) expect(ds.permitsByNumber.get(n)!.raw.acreageLimits.length).toBeGreaterThan(0);
  });

  it("uses only https URLs on government domains, in every data file", () => {
    // Provenance says where a text was actually read (a county's records system, a mirror): the one
    // place a non-government address belongs; it is never served as a source.
    const served = (k: DataFileKey) => JSON.parse(JSON.stringify(read(k), (key, v) => (key === "provenance" || key === "unchangedBy" ? undefined : v)));
    const urls = (Object.keys(DATA_FILES) as DataFileKey[]).flatMap((k) => urlsIn(served(k)));
    expect(urls.length).toBeGreaterThan(100);
    const bad = urls.filter((u) => !isGovUrl(u));
    expect(bad).toEqual([]);
  });
});
