import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { acres, feet, fmt } from "./format.js";

describe("fmt", () => {
  it("rounds float noise away at 12 significant digits", () => {
    expect(fmt(0.1 + 0.2)).toBe("0.3");
    expect(fmt(1 / 3)).toBe("0.333333333333");
    expect(fmt(0.05)).toBe("0.05");
    expect(fmt(-0)).toBe("0");
    expect(acres(1)).toBe("1 acre");
    expect(feet(180)).toBe("180 linear feet");
  });
  it("equals rounding every double to 12 significant digits, its fast path included", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
        expect(fmt(n)).toBe(Number.isInteger(n) ? (n === 0 ? "0" : String(n)) : String(Number(n.toPrecision(12))));
      }),
      { numRuns: 20_000 },
    );
  });
});
