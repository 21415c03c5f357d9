// Window maths: UTC calendar bounds and the choice of the window shown to the caller.
import { describe, expect, it } from "vitest";
import { bindingWindow, calendarWindow, planWindows, retryAfterSeconds } from "./windows.js";
import type { Policy } from "./policies.js";

const iso = (ms: number) => new Date(ms).toISOString();

describe("calendarWindow", () => {
  it.each([
    ["hour", "2026-03-14T10:59:59.999Z", "2026-03-14T10:00:00.000Z", "2026-03-14T11:00:00.000Z"],
    ["day", "2026-03-14T00:00:00.000Z", "2026-03-14T00:00:00.000Z", "2026-03-15T00:00:00.000Z"],
    ["day", "2026-12-31T23:59:59.999Z", "2026-12-31T00:00:00.000Z", "2027-01-01T00:00:00.000Z"],
    ["month", "2026-02-14T12:00:00.000Z", "2026-02-01T00:00:00.000Z", "2026-03-01T00:00:00.000Z"],
    ["month", "2028-02-29T23:59:59.999Z", "2028-02-01T00:00:00.000Z", "2028-03-01T00:00:00.000Z"],
    ["month", "2026-12-01T00:00:00.000Z", "2026-12-01T00:00:00.000Z", "2027-01-01T00:00:00.000Z"],
  ] as const)("%s holding %s is [%s, %s)", (name, at, start, end) => {
    const [s, e] = calendarWindow(name, Date.parse(at));
    expect([iso(s), iso(e)]).toEqual([start, end]);
  });

  it("names a new counter for each window, so a new window starts from zero", () => {
    const policy: Policy = { id: "p", document: "internal", tier: "t", bucketBy: "ip", windows: [{ name: "minute", limit: 1, quota: false }, { name: "hour", limit: 1, quota: false }, { name: "day", limit: 1, quota: false }, { name: "month", limit: 1, quota: true }] };
    expect(planWindows(policy, Date.parse("2026-03-14T10:20:30Z")).map((w) => w.key)).toEqual(["minute", "hour:2026-03-14T10", "day:2026-03-14", "month:2026-03"]);
  });
});

describe("bindingWindow", () => {
  const plans = planWindows({ id: "p", document: "internal", tier: "t", bucketBy: "ip", windows: [{ name: "minute", limit: 4, quota: false }, { name: "day", limit: 20, quota: false }] }, 0);
  it("is the window with the fewest units left when admitted", () => {
    expect(bindingWindow([{ used: 1, resetAtMs: 60_000, retryAtMs: 0 }, { used: 2, resetAtMs: 86_400_000, retryAtMs: 0 }], plans, true)).toBe(0);
    expect(bindingWindow([{ used: 1, resetAtMs: 60_000, retryAtMs: 0 }, { used: 18, resetAtMs: 86_400_000, retryAtMs: 0 }], plans, true)).toBe(1);
    // A tie goes to the longer wait.
    expect(bindingWindow([{ used: 4, resetAtMs: 60_000, retryAtMs: 0 }, { used: 20, resetAtMs: 86_400_000, retryAtMs: 0 }], plans, true)).toBe(1);
  });
  it("is the refusing window that frees last when refused, and Retry-After waits for it", () => {
    const counts = [{ used: 4, resetAtMs: 30_000, retryAtMs: 30_000 }, { used: 20, resetAtMs: 86_400_000, retryAtMs: 86_400_000 }];
    expect(bindingWindow(counts, plans, false)).toBe(1);
    expect(retryAfterSeconds(counts, 0)).toBe(86_400);
    expect(retryAfterSeconds([{ used: 4, resetAtMs: 100, retryAtMs: 100 }], 0)).toBe(1);
  });
});
