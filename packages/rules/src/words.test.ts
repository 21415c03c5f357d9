import { describe, expect, test } from "vitest";
import { statesUnit } from "./words.js";

describe("statesUnit", () => {
  test("a detail states its unit by the unit's measure, singular or plural", () => {
    expect(statesUnit("Inspect within 24 hours of a storm event of 0.5 inch or more.", "inches of rain")).toBe(true);
    expect(statesUnit("At least once every 7 calendar days.", "calendar days")).toBe(true);
    expect(statesUnit("Inspections may drop to once every calendar month.", "calendar month")).toBe(true);
    expect(statesUnit("Keep a 50-foot natural buffer.", "feet")).toBe(true);
    expect(statesUnit("Uniform vegetative cover of 70% of the native background.", "percent of pre-disturbance plant density")).toBe(true);
  });

  test("a number without its unit does not", () => {
    expect(statesUnit("Begin repairs within 72.", "hours")).toBe(false);
    expect(statesUnit("Implement corrective measures within seven days.", "calendar days")).toBe(false);
    expect(statesUnit("Stabilize within 2 weeks.", "days")).toBe(false);
  });
});
