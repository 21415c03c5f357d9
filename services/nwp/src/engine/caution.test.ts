// The rule of caution and the date rule on the real dataset: a term on any basis may make an
// answer more cautious; only a read text may relax it. "Not held" is never "not needed".
import { describe, expect, it } from "vitest";
import { TODAY } from "../test-support.js";
import { loadDataset } from "../dataset.js";
import { determine } from "./index.js";

const ds = loadDataset();
const base = { state: "CA", district: "SPK", activity: "residential-development", aquaticResourceType: "wetland", permanentImpactAcres: 0.3 };
const run = (over: Record<string, unknown> = {}, today = TODAY) => determine(ds, { ...base, ...over }, today).determination;

describe("rule of caution: PCN terms", () => {
  it("NWP 29 and 39: a PCN-for-every-activity term on any basis gives nwp-with-pcn with a trigger at its confidence", () => {
    for (const activity of ["residential-development", "commercial-development"]) {
      const d = run({ activity });
      expect(d.verdict).toBe("nwp-with-pcn");
      expect(d.pcn.required).toBe(true);
      expect(d.pcn.triggers).toHaveLength(1);
      expect(d.pcn.triggers[0]).toMatchObject({ confidence: "unverified", basis: "unsourced", inputValue: expect.stringMatching(/^any NWP (29|39) activity$/) });
      expect(d.headline).toContain("with a pre-construction notification");
    }
  });

  it("terms on a basis that may not relax never give 'no PCN': NWP 12 under its 1/10-acre threshold is PCN unknown, verdict nwp-with-pcn", () => {
    const d = run({ activity: "oil-gas-pipeline", permanentImpactAcres: 0.05 });
    expect(d.candidates[0].eligible).toBe(true);
    expect(d.pcn.required).toBeNull();
    expect(d.pcn.triggers).toEqual([]);
    expect(d.verdict).toBe("nwp-with-pcn");
    expect(d.headline).toContain("whether a pre-construction notification is required is unknown (NWP 12: its notification terms are stated only by a third party)");
    expect(d.coverageGaps).toContain('The PCN requirement for NWP 12 (Oil or Natural Gas Pipeline Activities) is unknown: its notification terms are stated only by a third party. It is never read as "no PCN"; confirm with the district.');
  });

  it("a crossed threshold on any basis requires a PCN (cautious)", () => {
    const d = run({ activity: "oil-gas-pipeline", permanentImpactAcres: 0.2 });
    expect(d.pcn.required).toBe(true);
    expect(d.pcn.triggers[0]).toMatchObject({ permitNumber: 12, basis: "secondary", confidence: "unverified" });
  });

  it("nwp-likely is never given on today's data: no permit's terms rest on a text that may relax", () => {
    const activities = ds.raw.activities.map((a) => a.id);
    for (const activity of activities) {
      for (const acres of [0, 0.05, 0.1, 0.3, 0.5, 2]) {
        for (const aquaticResourceType of ["wetland", "stream", "open-water", "tidal"]) {
          const d = run({ activity, aquaticResourceType, permanentImpactAcres: acres });
          expect(d.verdict).not.toBe("nwp-likely");
          expect(d.pcn.required).not.toBe(false);
        }
      }
    }
  });
});

describe("rule of caution: limits", () => {
  it("an unsourced limit excludes a project above it, but never admits one below it", () => {
    const over = run({ activity: "stormwater-management", permanentImpactAcres: 0.6 });
    const under = run({ activity: "stormwater-management", permanentImpactAcres: 0.3 });
    const c43 = (d: typeof over) => d.candidates.find((c) => c.number === 43)!;
    expect(c43(over).eligible).toBe(false);
    expect(c43(over).reasons[0]).toMatchObject({ code: "acreage-exceeds-limit", basis: "unsourced", confidence: "unverified" });
    expect(c43(under).eligible).toBeNull();
    expect(c43(under).reasons[0]).toMatchObject({ code: "limit-unsourced", basis: "unsourced" });
  });
});

describe("a prior-edition limit with a source saying 2026 did not change it may relax", () => {
  it("NWP 39's 1/2 acre (2021 text, consultant on 2026): eligible, cited at prior-edition; its PCN-for-every-activity term still makes it nwp-with-pcn", () => {
    const d = run({ activity: "commercial-development", permanentImpactAcres: 0.3 });
    expect(d.candidates[0].eligible).toBe(true);
    expect(d.candidates[0].reasons[0]).toMatchObject({ code: "acreage-within-limit", basis: "prior-edition" });
    expect(d.verdict).toBe("nwp-with-pcn");
    expect(d.pcn.required).toBe(true);
  });
  it("the 2021 text limits non-tidal waters only: a tidal loss is not assessed against it", () => {
    expect(run({ activity: "commercial-development", aquaticResourceType: "tidal", permanentImpactAcres: 0.1 }).candidates[0].eligible).toBeNull();
  });
});

describe("the date rule against the ruleset's expiry (2031-03-15)", () => {
  it("on the expiry date the 2026 NWPs still screen; the day after, no verdict is given from them", () => {
    expect(run({}, "2031-03-15").verdict).toBe("nwp-with-pcn");
    const d = run({}, "2031-03-16");
    expect(d.verdict).toBe("insufficient-data");
    expect(d.pcn.required).toBeNull();
    expect(d.headline).toContain("expired on 15 March 2031 and no successor ruleset is held");
  });

  it("a project date after the expiry is a coverage gap and leaves the verdict alone", () => {
    const d = run({ startDate: "2031-02-01", endDate: "2031-06-30" });
    expect(d.verdict).toBe("nwp-with-pcn");
    expect(d.coverageGaps[0]).toBe("The project's endDate 2031-06-30 falls after the Reissuance and Modification of Nationwide Permits; Final Action (2026 nationwide permits) expire on 15 March 2031: work not completed by then needs the successor nationwide permits, which this service does not hold; confirm with the district. The verdict is unchanged.");
    expect(run({ startDate: "2030-01-01", endDate: "2031-03-15" }).coverageGaps.some((g) => g.includes("falls after"))).toBe(false);
  });

  it("refuses a malformed date and an end before the start", () => {
    expect(() => determine(ds, { ...base, startDate: "2026-02-30" }, TODAY)).toThrow(/startDate/);
    expect(() => determine(ds, { ...base, startDate: "2026-05-01", endDate: "2026-04-01" }, TODAY)).toThrow(/endDate/);
  });
});
