// Table tests for every validation rule: each refusal is InvalidArgument with a BadRequest
import { TODAY } from "../testing.js";
// violation naming the field.
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { badRequestOf, isCalendarDate } from "@permits/rules";
import { ViolationReason } from "@permits/proto/common/v1/common";
import { SiteInputSchema, type SiteInput } from "@permits/proto/stormwater/v1/stormwater";
import { describe, expect, test } from "vitest";
import { loadDataset } from "../dataset.js";
import { determineStormwater } from "./index.js";

const ds = loadDataset();
type SiteInit = Partial<Omit<SiteInput, "$typeName">>;
const OK: SiteInit = { state: "MA", activity: "construction", disturbedAcres: 2 };

function refusal(site: SiteInit): ConnectError {
  try {
    determineStormwater(ds, create(SiteInputSchema, site), TODAY);
  } catch (e) {
    expect(e).toBeInstanceOf(ConnectError);
    return e as ConnectError;
  }
  throw new Error("expected a refusal");
}

describe("refused inputs", () => {
  test.each([
    ["state missing", { ...OK, state: "" }, "state", ViolationReason.MISSING, /state is required/],
    ["state unknown", { ...OK, state: "ZZ" }, "state", ViolationReason.UNKNOWN_VALUE, /state "ZZ" is not a known/],
    ["state of three letters", { ...OK, state: "MAS" }, "state", ViolationReason.UNKNOWN_VALUE, /state "MAS"/],
    ["activity missing", { ...OK, activity: "" }, "activity", ViolationReason.MISSING, /activity is required/],
    ["activity unknown", { ...OK, activity: "mining" }, "activity", ViolationReason.UNKNOWN_VALUE, /activity "mining" is not known/],
    ["acres missing", { state: "MA", activity: "construction" }, "disturbedAcres", ViolationReason.MISSING, /acres \(or disturbedAcres\) is required/],
    ["acres NaN", { ...OK, disturbedAcres: Number.NaN }, "disturbedAcres", ViolationReason.MALFORMED, /disturbedAcres must be a finite number/],
    ["acres Infinity", { ...OK, disturbedAcres: Number.POSITIVE_INFINITY }, "disturbedAcres", ViolationReason.MALFORMED, /finite/],
    ["acres negative", { ...OK, disturbedAcres: -0.1 }, "disturbedAcres", ViolationReason.MALFORMED, /disturbedAcres must be 0 or more/],
    ["max above total", { ...OK, disturbedAcres: 2, maxDisturbedAcresAtOneTime: 2.5 }, "maxDisturbedAcresAtOneTime", ViolationReason.MALFORMED, /must not exceed disturbedAcres/],
    ["max negative", { ...OK, maxDisturbedAcresAtOneTime: -1 }, "maxDisturbedAcresAtOneTime", ViolationReason.MALFORMED, /0 or more/],
    ["max NaN", { ...OK, maxDisturbedAcresAtOneTime: Number.NaN }, "maxDisturbedAcresAtOneTime", ViolationReason.MALFORMED, /finite/],
    ["startDate 30 February", { ...OK, startDate: "2026-02-30" }, "startDate", ViolationReason.MALFORMED, /startDate must be a real calendar date/],
    ["endDate month 13", { ...OK, endDate: "2026-13-01" }, "endDate", ViolationReason.MALFORMED, /endDate must be a real calendar date/],
    ["startDate not zero-padded", { ...OK, startDate: "2026-2-3" }, "startDate", ViolationReason.MALFORMED, /yyyy-mm-dd/],
    ["startDate empty", { ...OK, startDate: "" }, "startDate", ViolationReason.MALFORMED, /startDate/],
    ["endDate 29 February of a common year", { ...OK, endDate: "2027-02-29" }, "endDate", ViolationReason.MALFORMED, /endDate/],
  ] as const)("%s", (_label, site, field, reason, message) => {
    const err = refusal(site);
    expect(err.code).toBe(Code.InvalidArgument);
    expect(err.rawMessage).toMatch(message);
    const v = badRequestOf(err)!.violations;
    expect(v.map((x) => x.field)).toEqual([field]);
    expect(v[0].reason).toBe(reason);
    expect(v[0].description).toContain(field === "disturbedAcres" && reason === ViolationReason.MISSING ? "acres" : field);
  });

  test("an unknown state lists all 56 known codes, sorted", () => {
    const v = badRequestOf(refusal({ ...OK, state: "XX" }))!.violations[0];
    expect(v.knownValues).toHaveLength(56);
    expect(v.knownValues).toEqual([...v.knownValues].sort());
    expect(v.knownValues).toContain("VI");
    expect(v.knownValues).toContain("DC");
  });

  test("an unknown activity lists construction and industrial", () => {
    expect(badRequestOf(refusal({ ...OK, activity: "farming" }))!.violations[0].knownValues).toEqual(["construction", "industrial"]);
  });

  test("every violation is reported together", () => {
    const err = refusal({ state: "ZZ", activity: "", disturbedAcres: -1, startDate: "2026-02-30" });
    expect(badRequestOf(err)!.violations.map((v) => v.field)).toEqual(["state", "activity", "disturbedAcres", "startDate"]);
  });

  test("a request without a site is refused for state, activity and acres", () => {
    try {
      determineStormwater(ds, undefined, TODAY);
      throw new Error("expected a refusal");
    } catch (e) {
      expect(badRequestOf(e as ConnectError)!.violations.map((v) => v.field)).toEqual(["state", "activity", "disturbedAcres"]);
    }
  });
});

describe("accepted inputs", () => {
  test.each([
    ["lower-case state and activity", { state: "ma", activity: "Construction", disturbedAcres: 2 }],
    ["zero acres", { ...OK, disturbedAcres: 0 }],
    ["max equal to total", { ...OK, disturbedAcres: 2, maxDisturbedAcresAtOneTime: 2 }],
    ["29 February of a leap year", { ...OK, startDate: "2028-02-29", endDate: "2028-12-31" }],
  ] as const)("%s", (_l, site) => {
    expect(() => determineStormwater(ds, create(SiteInputSchema, site), TODAY)).not.toThrow();
  });

  test.each([
    ["2026-02-28", true], ["2026-02-30", false], ["2000-02-29", true], ["1900-02-29", false], ["2026-04-31", false],
    ["2026-00-10", false], ["2026-01-00", false], ["26-01-01", false], ["2026-01-01T00:00:00Z", false],
  ] as const)("isCalendarDate(%s) = %s", (s, ok) => expect(isCalendarDate(s)).toBe(ok));
});
