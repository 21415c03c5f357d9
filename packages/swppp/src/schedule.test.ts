// The inspection schedule on real answers of the stormwater engine, with fixed dates.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { inspectionSchedule, type InspectionRecord, type RainEvent } from "./index.js";
import { answer } from "./testing.js";
import { wordProblems } from "../../../test/support/answer-words.js";

const MA = answer("MA");
const MA_PLAIN = answer("MA", { dischargesToImpairedWater: false, dischargesToTier2Water: false });
const TX = answer("TX");
const IL = answer("IL");
const OPTION1 = "inspection.frequency.option1";
const OPTION2 = "inspection.frequency.option2";
const routineOn = (date: string): InspectionRecord => ({ date, type: "routine", reportCompletedOn: date });

describe("federal permit (MA): the two frequency options, from the answer's values", () => {
  it("option 1: every 7 days from the last inspection, overdue once past; storms of 0.25 inches or more due within 24 hours", () => {
    const s = inspectionSchedule({ determination: MA, inspections: [routineOn("2026-11-02")], rainEvents: [{ date: "2026-11-05", inches: 0.3 }, { date: "2026-11-07", inches: 0.1 }], frequencyOption: OPTION1, today: "2026-11-12" });
    expect(s.frequency).toMatchObject({ source: "permit", everyDays: 7 });
    const rule = s.frequency.basis[0];
    expect(rule.kind === "permit" && rule.rule.citation).toMatchObject({ sourceCitation: "2022 CGP Parts 4.2 and 4.3.1", confidence: "verified", basis: "agency-form" });
    expect(s.nextRoutine).toMatchObject({ due: "2026-11-09", overdue: true, words: "At least every 7 calendar days, counted from the last inspection on 2026-11-02." });
    expect(s.stormTrigger).toMatchObject({ inches: 0.25, withinHours: 24 });
    expect(s.stormEvents).toHaveLength(1);
    expect(s.stormEvents[0]).toMatchObject({ rainDate: "2026-11-05", inches: 0.3, due: "2026-11-06", status: "open", overdue: true });
    // The site does not say whether it discharges to impaired or Tier 2 waters: the storm item says so.
    expect(s.stormEvents[0].words).toContain("which the site does not state");
    expect(s.overdue.map((o) => [o.what, o.due])).toEqual([["storm_event", "2026-11-06"], ["routine", "2026-11-09"]]);
  });

  it("option 2 on a site that says it discharges to no impaired or Tier 2 water: every 14 days, and storm inspections; a storm inspection in time is done", () => {
    const s = inspectionSchedule({
      determination: MA_PLAIN,
      inspections: [routineOn("2026-11-02"), { date: "2026-11-06", type: "storm_event", reportCompletedOn: "2026-11-06" }],
      rainEvents: [{ date: "2026-11-05", inches: 0.25 }],
      frequencyOption: OPTION2,
      today: "2026-11-12",
    });
    expect(s.frequency.everyDays).toBe(14);
    expect(s.nextRoutine).toMatchObject({ due: "2026-11-20", overdue: false });
    expect(s.stormEvents[0]).toMatchObject({ status: "done", doneOn: "2026-11-06", overdue: false });
    expect(s.stormEvents[0].words).not.toContain("which the site does not state");
    expect(s.overdue).toEqual([]);
  });

  it("option 1 on such a site has no storm trigger (the standard frequency's words hold none)", () => {
    const s = inspectionSchedule({ determination: MA_PLAIN, inspections: [], rainEvents: [{ date: "2026-11-05", inches: 2 }], frequencyOption: OPTION1, today: "2026-11-12" });
    expect(s.stormTrigger).toBeNull();
    expect(s.stormEvents).toEqual([]);
    expect(s.nextRoutine).toMatchObject({ due: null, words: "No inspection is recorded and the site gives no start date, so no routine date can be counted. Enter the start date or the first inspection." });
  });

  it("option 2 where the receiving water is not stated: no routine date, the words say why", () => {
    const s = inspectionSchedule({ determination: MA, inspections: [routineOn("2026-11-02")], rainEvents: [], frequencyOption: OPTION2, today: "2026-11-12" });
    expect(s.nextRoutine.due).toBeNull();
    expect(s.nextRoutine.words).toMatch(/^The number of days under this option turns on a fact the site does not state\. Turns on the receiving water\./);
  });

  it("a storm inspection not made in its window is missed once a later inspection is recorded; a reduced frequency the permit does not hold is not applied", () => {
    const s = inspectionSchedule({
      determination: MA,
      inspections: [routineOn("2026-11-02"), routineOn("2026-11-09")],
      rainEvents: [{ date: "2026-11-05", inches: 0.3 }],
      frequencyOption: OPTION1,
      reducedFrequency: { requirementId: "inspection.inactiveSite", since: "2026-11-01" },
      today: "2026-11-12",
    });
    expect(s.stormEvents[0]).toMatchObject({ due: "2026-11-06", status: "missed", doneOn: null, overdue: false });
    expect(s.nextRoutine).toMatchObject({ due: "2026-11-16", overdue: false });
    expect(s.statements).toContain('The reduced frequency declared ("inspection.inactiveSite") is not one this permit holds, so it is not applied.');
  });

  it("no option chosen: the schedule asks for the choice and counts nothing", () => {
    const s = inspectionSchedule({ determination: MA, inspections: [routineOn("2026-11-02")], rainEvents: [], today: "2026-11-12" });
    expect(s.nextRoutine.due).toBeNull();
    expect(s.statements[0]).toMatch(/^The permit offers more than one inspection frequency \(Inspection frequency, option 1: /);
  });

  it("the report deadline is withheld by the answer (unsourced): no date, the agency named, its source shown as Unverified", () => {
    const s = inspectionSchedule({ determination: MA, inspections: [{ date: "2026-11-02", type: "routine" }], rainEvents: [], frequencyOption: OPTION1, today: "2026-11-12" });
    expect(s.reportRule.hours).toBeNull();
    expect(s.reportRule.words).toBe("This service holds no confirmed deadline for the inspection report; confirm it with U.S. Environmental Protection Agency.");
    const b = s.reportRule.basis[0];
    expect(b.kind === "permit" && b.rule.citation.confidence).toBe("unverified");
    expect(s.reports).toMatchObject([{ inspectionDate: "2026-11-02", due: null, overdue: false }]);
    expect(s.statements).toContain("This service holds no reduced inspection frequency for this permit (for example for stabilized areas, frozen ground or dry seasons). Do not inspect less often unless the permit itself allows it.");
  });

  it("counts the first routine date from the site's start date when no inspection is recorded", () => {
    const s = inspectionSchedule({ determination: answer("MA", { startDate: "2026-12-01" }), inspections: [], rainEvents: [], frequencyOption: OPTION1, today: "2026-11-12" });
    expect(s.nextRoutine).toMatchObject({ due: "2026-12-08", overdue: false, words: "At least every 7 calendar days, counted from the site's start date on 2026-12-01." });
  });
});

describe("a state permit held in words (TX)", () => {
  it("shows the permit's words, names TCEQ, and counts only the frequency the operator entered", () => {
    const none = inspectionSchedule({ determination: TX, inspections: [routineOn("2026-11-02")], rainEvents: [], today: "2026-11-12" });
    expect(none.nextRoutine.due).toBeNull();
    expect(none.statements[0]).toBe('The permit\'s inspection frequency is held only in words ("every 14 calendar days and after 0.5 inch of rain, or every 7 days"), not as a number of days. Enter the frequency you follow under it; confirm it with Texas Commission on Environmental Quality (TCEQ), TPDES.');
    const s = inspectionSchedule({ determination: TX, inspections: [routineOn("2026-11-02")], rainEvents: [{ date: "2026-11-04", inches: 0.6 }, { date: "2026-11-05", inches: 0.4 }], operatorFrequency: { everyDays: 14 }, today: "2026-11-12" });
    expect(s.frequency).toMatchObject({ source: "operator", everyDays: 14, words: "Every 14 calendar days, as entered by the operator (not checked by this service)." });
    expect(s.nextRoutine).toMatchObject({ due: "2026-11-16", overdue: false });
    // The rain trigger is the permit's (0.5 inches, Unverified); the time allowed after it is not held.
    expect(s.stormTrigger).toMatchObject({ inches: 0.5, withinHours: null });
    expect(s.stormEvents).toMatchObject([{ rainDate: "2026-11-04", due: null, status: "open", overdue: false }]);
    expect(s.stormEvents[0].words).toContain("The time allowed after the rain is not held by this service; confirm it with Texas Commission on Environmental Quality (TCEQ), TPDES.");
  });

  it("the 7-day schedule without the rain trigger lists no storm inspection", () => {
    const s = inspectionSchedule({ determination: TX, inspections: [], rainEvents: [{ date: "2026-11-04", inches: 0.6 }], operatorFrequency: { everyDays: 7 }, followsRainTrigger: false, today: "2026-11-12" });
    expect(s.stormEvents).toEqual([]);
  });
});

describe("a value that measures something else (CA)", () => {
  it("California's qualifying precipitation event is a forecast: it is not counted as a storm trigger", () => {
    const s = inspectionSchedule({ determination: answer("CA"), inspections: [routineOn("2026-11-02")], rainEvents: [{ date: "2026-11-05", inches: 2 }], operatorFrequency: { everyDays: 7 }, today: "2026-11-12" });
    expect(s.stormTrigger).toBeNull();
    expect(s.stormEvents).toEqual([]);
    expect(s.statements[0]).toContain('held only in words ("weekly")');
    expect(s.nextRoutine).toMatchObject({ due: "2026-11-09", overdue: true });
  });
});

describe("a state whose permit is not read (IL)", () => {
  it("says so, names the agency, and uses no other permit's numbers", () => {
    const s = inspectionSchedule({ determination: IL, inspections: [routineOn("2026-11-02")], rainEvents: [{ date: "2026-11-05", inches: 1 }], frequencyOption: OPTION1, today: "2026-11-12" });
    expect(s.frequency).toMatchObject({ source: "none", everyDays: null });
    expect(s.nextRoutine.due).toBeNull();
    // The engine's own notice on the empty list, naming the permit and its agency.
    expect(s.statements[0]).toMatch(/^No requirements are listed because the governing permit \(General NPDES Permit .*\(ILR10\), issued by Illinois Environmental Protection Agency\) has not been read by this service\. .*The federal CGP's requirements are not substituted for a state permit\.$/);
    expect(s.stormEvents).toEqual([]);
    expect(JSON.stringify(s)).not.toMatch(/0\.25|calendar days|24 hours/);
  });

  it("a site whose coverage is not required (MA, half an acre) is told why the list is empty, not that the permit is unread", () => {
    const s = inspectionSchedule({ determination: answer("MA", { disturbedAcres: 0.5 }), inspections: [], rainEvents: [], today: "2026-11-12" });
    expect(s.statements[0]).toMatch(/^No requirements are listed because permit coverage is not required on the facts given\./);
    expect(s.nextRoutine.due).toBeNull();
  });

  it("follows the frequency the operator entered, shown as entered by them", () => {
    const s = inspectionSchedule({ determination: IL, inspections: [routineOn("2026-11-02")], rainEvents: [{ date: "2026-11-05", inches: 0.5 }], operatorFrequency: { everyDays: 7, stormInches: 0.5, stormWithinHours: 24 }, today: "2026-11-12" });
    expect(s.nextRoutine).toMatchObject({ due: "2026-11-09", overdue: true });
    expect(s.nextRoutine.basis).toEqual([{ kind: "operator", words: "As entered by the operator (not checked by this service)" }]);
    expect(s.stormEvents).toMatchObject([{ rainDate: "2026-11-05", due: "2026-11-06", overdue: true }]);
  });
});

describe("reduced frequencies, only where the permit holds them", () => {
  it("Washington's inactive-site frequency (1 calendar month), declared by the operator", () => {
    const wa = answer("WA");
    const base = { determination: wa, inspections: [routineOn("2026-10-31")], rainEvents: [], today: "2026-11-12" };
    expect(inspectionSchedule(base).nextRoutine.due).toBe("2026-11-07");
    const s = inspectionSchedule({ ...base, reducedFrequency: { requirementId: "inspection.inactiveSite", since: "2026-11-01" } });
    expect(s.reduced.map((r) => [r.rule.id, r.inEffectSince])).toEqual([["inspection.inactiveSite", "2026-11-01"]]);
    expect(s.nextRoutine).toMatchObject({ due: "2026-11-30", overdue: false });
    expect(s.nextRoutine.words).toBe("Reduced inspections for inactive, stabilized sites: in effect since 2026-11-01, as stated by the operator. At least once every calendar month, counted from the last inspection on 2026-10-31.");
  });

  it("Colorado's winter exclusion pauses routine inspections while declared", () => {
    const s = inspectionSchedule({ determination: answer("CO"), inspections: [routineOn("2026-11-02")], rainEvents: [], reducedFrequency: { requirementId: "inspection.winterExclusion", since: "2026-11-05" }, today: "2026-11-30" });
    expect(s.nextRoutine.due).toBeNull();
    expect(s.nextRoutine.words).toContain("Routine inspections are paused since 2026-11-05");
    expect(s.overdue).toEqual([]);
  });
});

describe("words", () => {
  it("no agreement errors for one day, one hour or one inch (an operator's entry of 1)", () => {
    const s = inspectionSchedule({ determination: IL, inspections: [routineOn("2026-11-02")], rainEvents: [{ date: "2026-11-05", inches: 1 }], operatorFrequency: { everyDays: 1, stormInches: 1, stormWithinHours: 1 }, today: "2026-11-12" });
    expect(s.frequency.words).toBe("Every 1 calendar day, as entered by the operator (not checked by this service).");
    expect(s.nextRoutine.words).toBe("At least every 1 calendar day, counted from the last inspection on 2026-11-02.");
    expect(s.stormEvents[0].words).toBe("1 inch of rain (the trigger is 1 inch or more): inspect within 1 hour.");
    const texts = JSON.stringify(s).match(/"words":"[^"]*"/g) ?? [];
    expect(texts.flatMap((t) => wordProblems(t))).toEqual([]);
  });
});

describe("properties", () => {
  const day = fc.integer({ min: 0, max: 120 }).map((n) => new Date(Date.UTC(2026, 0, 1 + n)).toISOString().slice(0, 10));
  const inspection = fc.record({ date: day, type: fc.constantFrom("routine", "storm_event", "other") as fc.Arbitrary<InspectionRecord["type"]> });
  const rain: fc.Arbitrary<RainEvent> = fc.record({ date: day, inches: fc.double({ min: 0, max: 3, noNaN: true }) });
  const site = fc.constantFrom(MA, MA_PLAIN, TX, IL);
  const args = fc.record({ d: site, inspections: fc.array(inspection, { maxLength: 8 }), rain: fc.array(rain, { maxLength: 8 }), option: fc.constantFrom(OPTION1, OPTION2, null), entered: fc.option(fc.integer({ min: 1, max: 30 })), today: day });

  it("no inspection due date precedes the last inspection", () => {
    fc.assert(fc.property(args, ({ d, inspections, rain, option, entered, today }) => {
      const s = inspectionSchedule({ determination: d, inspections, rainEvents: rain, frequencyOption: option, operatorFrequency: entered ? { everyDays: entered, stormInches: 0.5, stormWithinHours: 24 } : null, today });
      const last = inspections.map((i) => i.date).sort().at(-1);
      if (!last) return;
      if (s.nextRoutine.due) expect(s.nextRoutine.due >= last).toBe(true);
      for (const e of s.stormEvents) if (e.status === "open" && e.due) expect(e.due >= last).toBe(true);
    }), { numRuns: 300 });
  });

  it("is deterministic: the same input gives the same schedule, whatever the order of the records", () => {
    fc.assert(fc.property(args, ({ d, inspections, rain, option, today }) => {
      const a = inspectionSchedule({ determination: d, inspections, rainEvents: rain, frequencyOption: option, today });
      const b = inspectionSchedule({ determination: d, inspections: [...inspections].reverse(), rainEvents: [...rain].reverse(), frequencyOption: option, today });
      expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    }), { numRuns: 200 });
  });

  it("refuses a malformed date with a plain message", () => {
    expect(() => inspectionSchedule({ determination: MA, inspections: [{ date: "2026-02-30", type: "routine" }], rainEvents: [], today: "2026-11-12" })).toThrow("inspection date must be a calendar date (yyyy-mm-dd), got \"2026-02-30\"");
  });
});
