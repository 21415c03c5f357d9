// The rule of caution and the date rule: a term on any basis may make an answer more cautious;
// only a fact that may relax (official text, agency form, or a prior edition an official source
// says is unchanged) may relax it. "Not held" is never "not needed". Issue 27's reproductions.
import { describe, expect, it } from "vitest";
import { fixtureDataset, readLimitsDataset, TODAY } from "../testing.js";
import { loadDataset } from "../dataset.js";
import { determine, type Dataset, type RawDataset } from "./index.js";

const ds = loadDataset();
const base = { state: "CA", district: "SPK", activity: "residential-development", aquaticResourceType: "wetland", permanentImpactAcres: 0.3 };
const runOn = (d: Dataset, over: Record<string, unknown> = {}, today = TODAY) => determine(d, { ...base, ...over }, today).determination;
const run = (over: Record<string, unknown> = {}, today = TODAY) => runOn(ds, over, today);

/** The real data with the acreage limits of the given NWPs read in the official text. */
const readLimits = (...numbers: number[]) => (raw: RawDataset) => {
  for (const n of numbers) {
    const p = raw.permits.find((x) => x.number === n)!;
    p.acreageLimits = p.acreageLimits.map((l) => ({ ...l, basis: "official-text", confidence: "verified", quote: "Fixture quote." }));
  }
};

describe("issue 27 reproductions: limits admit only on facts that may relax", () => {
  it("CA/SPK utility-line, wetland, 0.45 acre: NWPs 57 and 58's secondary 1/2-acre limit no longer makes them eligible", () => {
    const d = run({ activity: "utility-line", permanentImpactAcres: 0.45 });
    expect(d.candidates.map((c) => [c.number, c.eligible, c.reasons[0].code, c.reasons[0].basis])).toEqual([
      [57, null, "limit-not-confirmed", "secondary"],
      [58, null, "limit-not-confirmed", "secondary"],
    ]);
    expect(d.verdict).toBe("insufficient-data");
    expect(d.pcn).toMatchObject({ required: true, triggers: [], because: "a pre-construction notification is treated as required because no candidate nationwide permit was confirmed for this project, so one cannot be ruled out; confirm with the Corps district" });
    expect(d.candidates[0].reasons[0].message).toBe("0.45 acres of permanent loss is within the 1/2 acre limit of NWP 57 stated only by a third party, which is not the 2026 permit text, so eligibility is not assessed; confirm with the Corps district.");
  });

  it("CA/SPK road crossing, tidal, 0.3 acre: NWP 14's prior-edition 1/3-acre limit no longer makes it eligible", () => {
    const d = run({ activity: "road-crossing", aquaticResourceType: "tidal" });
    expect(d.candidates.map((c) => [c.number, c.eligible, c.reasons[0].code, c.reasons[0].basis])).toEqual([[14, null, "limit-not-confirmed", "prior-edition"]]);
    expect(d.verdict).toBe("insufficient-data");
  });

  it("a limit on any basis still excludes a project above it (cautious)", () => {
    const d = run({ activity: "utility-line", permanentImpactAcres: 0.6 });
    expect(d.candidates.map((c) => c.eligible)).toEqual([false, false]);
    expect(d.verdict).toBe("individual-permit-likely");
  });

  it("an unsourced limit excludes a project above it, but never admits one below it", () => {
    const c43 = (d: ReturnType<typeof run>) => d.candidates.find((c) => c.number === 43)!;
    expect(c43(run({ activity: "stormwater-management", permanentImpactAcres: 0.6 }))).toMatchObject({ eligible: false, reasons: [{ code: "acreage-exceeds-limit", basis: "unsourced" }] });
    expect(c43(run({ activity: "stormwater-management", permanentImpactAcres: 0.3 }))).toMatchObject({ eligible: null, reasons: [{ code: "limit-unsourced", basis: "unsourced" }] });
  });

  it("streamBedLinearFeet 5000 with no linear-foot term held: unknown, never within", () => {
    const fx = fixtureDataset(readLimits(29));
    const d = runOn(fx, { aquaticResourceType: "stream", streamBedLinearFeet: 5000 });
    expect(d.candidates[0].eligible).toBeNull();
    expect(d.candidates[0].reasons.map((r) => r.code)).toEqual(["acreage-within-limit", "linear-feet-limit-not-held"]);
    expect(d.verdict).toBe("insufficient-data");
    // Without a stream-bed loss stated there is nothing to compare: the acreage decides.
    expect(runOn(fx, { aquaticResourceType: "stream" }).candidates[0].eligible).toBe(true);
  });

  it("a source saying an NWP has no linear-foot limit admits only as the rule allows", () => {
    const none = (basis: "official-text" | "secondary") => fixtureDataset((raw) => {
      readLimits(29)(raw);
      const p = raw.permits.find((x) => x.number === 29)!;
      p.noStreamBedLinearFeetLimit = { summary: "No stream-bed limit in linear feet (fixture).", sourceUrl: p.sourceUrl, confidence: basis === "official-text" ? "verified" : "unverified", basis };
    });
    const read = runOn(none("official-text"), { aquaticResourceType: "stream", streamBedLinearFeet: 5000 });
    expect(read.candidates[0]).toMatchObject({ eligible: true, reasons: [{ code: "acreage-within-limit" }, { code: "no-linear-feet-limit", basis: "official-text" }] });
    const hearsay = runOn(none("secondary"), { aquaticResourceType: "stream", streamBedLinearFeet: 5000 });
    expect(hearsay.candidates[0]).toMatchObject({ eligible: null, reasons: [{}, { code: "linear-feet-limit-not-held", basis: "secondary" }] });
  });

  it("unchangedBy admits a prior-edition limit only when it names an official source", () => {
    const withUnchanged = (unchangedBy: string) => fixtureDataset((raw) => {
      const p = raw.permits.find((x) => x.number === 29)!;
      p.acreageLimits = p.acreageLimits.map((l) => ({ ...l, unchangedBy }));
    });
    const consultant = runOn(withUnchanged("A consultant's page (https://www.wetlands.com/2026-final-nwps) says it did not change."));
    expect(consultant.candidates[0].eligible).toBeNull();
    const official = runOn(withUnchanged("The 2026 rule (https://www.govinfo.gov/content/pkg/FR-2026-01-08/html/2026-00121.htm) keeps the 1/2-acre limit."));
    expect(official.candidates[0]).toMatchObject({ eligible: true, reasons: [{ code: "acreage-within-limit", basis: "prior-edition" }] });
    // NWP 39's 2021 limit had only a consultant's page behind it: it no longer admits.
    expect(run({ activity: "commercial-development" }).candidates[0]).toMatchObject({ number: 39, eligible: null });
  });
});

describe("rule of caution: PCN terms", () => {
  const fx = readLimitsDataset(12, 29, 39);

  it("NWP 29 and 39's unread PCN-for-every-activity term: a PCN treated as required, said once and the same way in pcn, headline and gaps", () => {
    for (const [activity, n] of [["residential-development", 29], ["commercial-development", 39]] as const) {
      const d = runOn(fx, { activity });
      const said = `a pre-construction notification is treated as required for NWP ${n} because its notification terms were not confirmed in any source we could read; confirm with the Corps district`;
      expect(d.verdict).toBe("nwp-with-pcn");
      expect(d.pcn.required).toBe(true);
      expect(d.pcn.triggers).toEqual([expect.objectContaining({ permitNumber: n, threshold: said, inputValue: `any NWP ${n} activity`, confidence: "unverified", basis: "unsourced" })]);
      expect(d.headline).toContain(`; ${said}.`);
      expect(d.coverageGaps.filter((g) => g.includes(`NWP ${n}`) && /notification/.test(g))).toEqual([`${said.charAt(0).toUpperCase()}${said.slice(1)}.`]);
      expect(d.coverageGaps.some((g) => /unknown/.test(g) && g.includes(`NWP ${n}`))).toBe(false);
    }
  });

  it("terms on a basis that may not relax never give 'no PCN': NWP 12 under its 1/10-acre threshold is PCN unknown, verdict nwp-with-pcn", () => {
    const d = runOn(fx, { state: "TX", district: "SWF", activity: "oil-gas-pipeline", permanentImpactAcres: 0.05 });
    expect(d.candidates[0].eligible).toBe(true);
    const said = "a pre-construction notification is treated as required for NWP 12 because its notification terms are stated only by a third party, so one cannot be ruled out; confirm with the Corps district";
    expect(d.pcn).toMatchObject({ required: true, triggers: [], because: said });
    expect(d.verdict).toBe("nwp-with-pcn");
    expect(d.headline).toContain(`with a pre-construction notification (45-day review): 0.05 acres of permanent loss is within its 1/2-acre limit (verified); ${said}.`);
    expect(d.coverageGaps).toContain(`A${said.slice(1)}.`);
  });

  it("a crossed threshold on any basis requires a PCN (cautious), with no 'unknown' gap beside it", () => {
    const d = runOn(fx, { state: "TX", district: "SWF", activity: "oil-gas-pipeline", permanentImpactAcres: 0.2 });
    expect(d.pcn.required).toBe(true);
    expect(d.pcn.triggers).toEqual([expect.objectContaining({ permitNumber: 12, basis: "secondary", confidence: "unverified", inputValue: "0.2 acres" })]);
    const said = "a pre-construction notification is required because a notification threshold of NWP 12 is crossed (unverified)";
    expect(d.pcn.because).toBe(said);
    expect(d.headline).toContain(`with a pre-construction notification (45-day review): 0.2 acres of permanent loss is within its 1/2-acre limit (verified); ${said}.`);
    expect(d.coverageGaps).toContain(`A${said.slice(1)}.`);
    expect(d.coverageGaps.some((g) => /NWP 12 .*unknown/.test(g))).toBe(false);
  });

  it("nwp-likely is never given on today's data: no permit's terms rest on a text that may relax", () => {
    for (const activity of ds.activityIds) {
      for (const acres of [0, 0.05, 0.1, 0.3, 0.5, 2]) {
        for (const aquaticResourceType of ds.resourceTypes) {
          const d = run({ activity, aquaticResourceType, permanentImpactAcres: acres });
          expect(d.verdict).not.toBe("nwp-likely");
          expect(d.pcn.required).not.toBe(false);
        }
      }
    }
  });
});

describe("issue 27 reproductions: the headline carries the decisive facts", () => {
  it("the README's example (CA, SPK, residential, 0.3 acre) names California's 401 denial for NWP 29 in the headline", () => {
    const d = run();
    expect(d.verdict).toBe("insufficient-data");
    expect(d.confidence).toBe("unverified");
    expect(d.pcn).toMatchObject({ required: true, triggers: [] });
    expect(d.headline).toBe(
      "Insufficient data: no candidate permit (NWP 29) could be assessed for 0.3 acres of permanent loss in wetland waters: the acreage limit held for NWP 29 is not confirmed in the 2026 permit text; confirm with the Corps district. " +
      "A pre-construction notification is treated as required because no candidate nationwide permit was confirmed for this project, so one cannot be ruled out; confirm with the Corps district. " +
      "California's final 2026 Section 401 decision denies water quality certification for NWP 29, so an individual Section 401 certification is needed.",
    );
    // NWP 29's unread "PCN for every activity" term, said once, in the same words as everywhere.
    expect(d.coverageGaps.filter((g) => /NWP 29/.test(g) && /notification/.test(g))).toEqual([
      "If NWP 29 applies, a pre-construction notification is treated as required for NWP 29 because its notification terms were not confirmed in any source we could read; confirm with the Corps district.",
    ]);
  });

  it("a district outside the state (TX with SAJ) is named in the headline", () => {
    const d = run({ state: "TX", district: "SAJ" });
    expect(d.headline).toContain("The Jacksonville District (SAJ) is not recorded as serving Texas: confirm which Corps district handles the site.");
    expect(run({ state: "TX", district: "SWF" }).headline).not.toContain("not recorded as serving");
  });

  it("a 401 denial is not named for a candidate the project already exceeds", () => {
    expect(run({ permanentImpactAcres: 2 }).headline).not.toContain("Section 401");
  });
});

describe("issue 27: words written for the user", () => {
  it("FL/SAJ road crossing: NWP 14's unscreened notification term in plain words", () => {
    const d = run({ state: "FL", district: "SAJ", activity: "road-crossing" });
    expect(d.coverageGaps).toContain("NWP 14 (Linear Transportation Projects): A PCN may also be required if the discharge is in a special aquatic site (not confirmed in any source we could read). The request does not carry these facts, so they were not screened.");
  });

  it("NWP 39's unread PCN term is said as a PCN treated as required, never as a belief in the research notes", () => {
    const d = run({ activity: "commercial-development", state: "TX", district: "SWF" });
    expect(d.coverageGaps).toContain("If NWP 39 applies, a pre-construction notification is treated as required for NWP 39 because its notification terms were not confirmed in any source we could read; confirm with the Corps district.");
    expect(JSON.stringify(d)).not.toMatch(/belie|UNCONFIRMED|research notes/i);
  });
});

describe("the date rule against the ruleset's expiry (2031-03-15)", () => {
  it("on the expiry date the 2026 NWPs still screen; the day after, no verdict is given from them", () => {
    expect(run({}, "2031-03-15").headline).not.toContain("expired");
    const d = run({}, "2031-03-16");
    expect(d.verdict).toBe("insufficient-data");
    expect(d.pcn).toMatchObject({ required: true, triggers: [], because: "a pre-construction notification is treated as required because the nationwide permits this service holds have expired and no successor is held, so one cannot be ruled out; confirm with the Corps district" });
    expect(d.headline).toContain("expired on 15 March 2031 and no successor ruleset is held");
  });

  it("a project date after the expiry is a coverage gap and leaves the verdict alone", () => {
    const d = run({ startDate: "2031-02-01", endDate: "2031-06-30" });
    expect(d.verdict).toBe(run().verdict);
    expect(d.coverageGaps[0]).toBe("The project's endDate 2031-06-30 falls after the Reissuance and Modification of Nationwide Permits; Final Action (2026 nationwide permits) expire on 15 March 2031: work not completed by then needs the successor nationwide permits, which this service does not hold; confirm with the district. The verdict is unchanged.");
    expect(run({ startDate: "2030-01-01", endDate: "2031-03-15" }).coverageGaps.some((g) => g.includes("falls after"))).toBe(false);
  });

  it("refuses a malformed date and an end before the start", () => {
    expect(() => determine(ds, { ...base, startDate: "2026-02-30" }, TODAY)).toThrow(/startDate/);
    expect(() => determine(ds, { ...base, startDate: "2026-05-01", endDate: "2026-04-01" }, TODAY)).toThrow(/endDate/);
  });
});
