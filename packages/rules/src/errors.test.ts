import { describe, expect, it } from "vitest";
import { Code } from "@connectrpc/connect";
import { badRequestOf, invalidArgument, resourceNotFound, resourceNotFoundOf, ViolationReason } from "./errors.js";

describe("structured errors", () => {
  it("carries field violations and key lists on InvalidArgument", () => {
    const err = invalidArgument("state is unknown", [
      { field: "state", description: "no row for ZZ", reason: ViolationReason.UNKNOWN_VALUE, knownValues: ["AL", "AK"] },
    ], { unknownKeys: ["foo"], knownKeys: ["state"] });
    expect(err.code).toBe(Code.InvalidArgument);
    expect(err.rawMessage).toBe("state is unknown");
    const detail = badRequestOf(err)!;
    expect(detail.violations[0].field).toBe("state");
    expect(detail.violations[0].knownValues).toEqual(["AL", "AK"]);
    expect(detail.unknownKeys).toEqual(["foo"]);
  });
  it("carries the valid set on NotFound", () => {
    const err = resourceNotFound("NWP 26 is reserved", "nwp", "26", ["1", "2"]);
    expect(err.code).toBe(Code.NotFound);
    expect(resourceNotFoundOf(err)?.validValues).toEqual(["1", "2"]);
  });
});
