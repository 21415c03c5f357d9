// Deadline warnings as pure functions of a real answer, the site's end date, its records and a
// manual clock's day: the permit expiring (before the site ends, or within 60 days), an overdue
// inspection, an overdue corrective action.
import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { ManualClock } from "@permits/runtime";
import { Confidence } from "@permits/proto/common/v1/common";
import { InspectionSchema, InspectionStatus } from "@permits/proto/sites/v1/sites";
import type { Determination } from "@permits/proto/stormwater/v1/stormwater";
import { deadlineWarnings, permitExpiring, siteSchedule } from "./deadlines.js";
import { answer } from "./testing.js";

const MA = answer("MA");
/** The same answer with its permit's expiry date set here, so the dates below do not follow the data. */
const expiringOn = (expiryDate: string, confidence = Confidence.VERIFIED): Determination => ({ ...MA, permit: { ...MA.permit!, expiryDate, confidence } });
const dayOf = (clock: ManualClock) => new Date(clock.now()).toISOString().slice(0, 10);
const signed = (id: string, inspectedOn: string) =>
  create(InspectionSchema, { id, version: 1, status: InspectionStatus.SIGNED, report: { inspectedOn, stormTriggered: false }, signedAt: `${inspectedOn}T17:00:00Z` });

describe("permitExpiring", () => {
  it("warns when the permit expires before the site's end date, however far off", () => {
    const w = permitExpiring(expiringOn("2027-06-30"), "2027-12-31", "2026-11-28");
    expect(w).toEqual({
      type: "site.permit_expiring",
      subject: "cgp-2022:2027-06-30",
      permit: { id: "cgp-2022", name: MA.permit!.name, permitNumber: null, expiresOn: "2027-06-30", verified: true },
      beforeSiteEnds: true,
      siteEndsOn: "2027-12-31",
      expired: false,
    });
  });

  it("warns from 60 days before the expiry as the clock moves, and not before; an unverified date stays marked", () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 1, 12));
    const d = expiringOn("2027-01-15", Confidence.UNVERIFIED);
    expect(permitExpiring(d, null, dayOf(clock))).toBeNull(); // 75 days ahead
    clock.advance(15 * 86_400_000); // 2026-11-16: 60 days ahead
    expect(permitExpiring(d, null, dayOf(clock))).toMatchObject({ beforeSiteEnds: false, expired: false, permit: { expiresOn: "2027-01-15", verified: false } });
    clock.advance(61 * 86_400_000); // 2027-01-16
    expect(permitExpiring(d, "2027-01-10", dayOf(clock))).toMatchObject({ expired: true, beforeSiteEnds: false });
  });

  it("says nothing when the answer holds no expiry date or it is far off and after the site ends", () => {
    expect(permitExpiring({ ...MA, permit: { ...MA.permit!, expiryDate: undefined } }, "2030-01-01", "2026-11-28")).toBeNull();
    expect(permitExpiring(expiringOn("2029-01-01"), "2028-01-01", "2026-11-28")).toBeNull();
  });
});

describe("deadlineWarnings", () => {
  it("lists the overdue routine inspection and each overdue corrective action, each with the subject its event is keyed by", () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 12, 9));
    const d = expiringOn("2029-01-01");
    const records = [signed("insp_1", "2026-11-02")];
    const actions = [
      { id: "ca_1", description: "Repair the north silt fence", dueOn: "2026-11-10" },
      { id: "ca_2", description: "Sweep the entrance", dueOn: "2026-11-20" },
    ];
    const at = (today: string) => deadlineWarnings({ determination: d, siteEndsOn: "2027-06-30", schedule: siteSchedule(d, records, [], today, { optionId: "inspection.frequency.option1" }), openCorrectiveActions: actions, today });
    expect(at(dayOf(clock)).map((w) => [w.type, w.subject])).toEqual([
      ["inspection.overdue", "routine:2026-11-09"],
      ["corrective_action.overdue", "ca_1:2026-11-10"],
    ]);
    clock.advance(9 * 86_400_000); // 2026-11-21: the second action is overdue too; the same routine date still is
    expect(at(dayOf(clock)).map((w) => w.subject)).toEqual(["routine:2026-11-09", "ca_1:2026-11-10", "ca_2:2026-11-20"]);
  });

  it("lists nothing for a site inspected on time with no open actions and a permit lasting past its end", () => {
    const d = expiringOn("2029-01-01");
    const today = "2026-11-05";
    expect(deadlineWarnings({ determination: d, siteEndsOn: "2027-06-30", schedule: siteSchedule(d, [signed("insp_1", "2026-11-02")], [], today, { optionId: "inspection.frequency.option1" }), openCorrectiveActions: [], today })).toEqual([]);
  });
});
