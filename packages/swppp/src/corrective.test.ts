// Corrective-action deadlines on real answers, with fixed dates.
import { describe, expect, it } from "vitest";
import { correctiveActionDeadlines } from "./index.js";
import { answer } from "./testing.js";

const byId = (r: ReturnType<typeof correctiveActionDeadlines>) => Object.fromEntries(r.deadlines.map((d) => [d.rule.id, [d.due, d.words]]));

describe("corrective-action deadlines", () => {
  it("federal permit (MA), found on Friday 6 November 2026: next business day, a withheld value, and hours", () => {
    const r = correctiveActionDeadlines({ determination: answer("MA"), foundOn: "2026-11-06" });
    expect(r.notHeld).toBeNull();
    expect(byId(r)).toEqual({
      "corrective.minor": ["2026-11-09", "By the close of the next business day (counted here as the next Monday-to-Friday; a public holiday is not taken into account)."],
      "corrective.major": [null, "No confirmed deadline is held for this rule; read its words and confirm it in the permit. No date is counted."],
      "corrective.documentation": ["2026-11-07", "Within 24 hours of finding the problem (counted here to the end of the last calendar day it can fall on)."],
    });
    const minor = r.deadlines.find((d) => d.rule.id === "corrective.minor")!;
    expect(minor.rule.citation).toMatchObject({ sourceCitation: "CGP Part 2.1.4.b (EPA routine maintenance / corrective action guidelines)", confidence: "unverified", basis: "agency-form" });
  });

  it("Washington: 7 and 10 days from the inspection, each with its basis", () => {
    const r = correctiveActionDeadlines({ determination: answer("WA"), foundOn: "2026-11-06" });
    expect(byId(r)).toEqual({
      "corrective.swpppRevision": ["2026-11-13", "Within 7 days of finding the problem."],
      "corrective.bmpImplementation": ["2026-11-16", "Within 10 days of finding the problem."],
    });
    expect(r.deadlines[0].rule.citation.basis).toBe("prior-edition");
  });

  it("California: 72 hours; Colorado: a rule in words gives no date", () => {
    expect(byId(correctiveActionDeadlines({ determination: answer("CA"), foundOn: "2026-11-06" }))["corrective.repairs"]).toEqual(["2026-11-09", "Within 72 hours of finding the problem (counted here to the end of the last calendar day it can fall on)."]);
    expect(byId(correctiveActionDeadlines({ determination: answer("CO"), foundOn: "2026-11-06" }))["corrective.inadequateMeasure"]).toEqual([null, 'The permit\'s deadline is held only in words: "in noncompliance until the measure is replaced or corrected". No date is counted.']);
  });

  it("no corrective rule held (TX; IL not read): a marked blank naming the agency, no invented deadline", () => {
    const tx = correctiveActionDeadlines({ determination: answer("TX"), foundOn: "2026-11-06" });
    expect(tx.deadlines).toEqual([]);
    expect(tx.notHeld).toBe("This service did not find the permit's rule for corrective-action deadlines (TPDES Construction Stormwater General Permit TXR150000, issued by Texas Commission on Environmental Quality (TCEQ), TPDES). No deadline is invented: confirm it with Texas Commission on Environmental Quality (TCEQ), TPDES. Deadline: ____________________ (to be completed by the operator from the permit)");
    const il = correctiveActionDeadlines({ determination: answer("IL"), foundOn: "2026-11-06" });
    expect(il.notHeld).toContain("Illinois Environmental Protection Agency");
    expect(il.deadlines).toEqual([]);
  });

  it("refuses a malformed date", () => {
    expect(() => correctiveActionDeadlines({ determination: answer("MA"), foundOn: "6 Nov" })).toThrow("the date the problem was found must be a calendar date (yyyy-mm-dd), got \"6 Nov\"");
  });
});
