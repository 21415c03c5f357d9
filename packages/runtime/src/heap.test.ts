import { describe, expect, it } from "vitest";
import { ConfigError, readEnv } from "./config.js";
import { DEFAULT_HEAP_GROWING_PERCENT, heapGrowingPercent } from "./heap.js";

const read = (v: string | undefined) => readEnv({ HEAP_GROWING_PERCENT: heapGrowingPercent({ default: DEFAULT_HEAP_GROWING_PERCENT }) }, { HEAP_GROWING_PERCENT: v }).HEAP_GROWING_PERCENT;

describe("HEAP_GROWING_PERCENT", () => {
  it("defaults to 100 and takes whole numbers from 0 (V8's own) to 300", () => {
    expect(read(undefined)).toBe(100);
    expect(read("")).toBe(100);
    expect(read("0")).toBe(0);
    expect(read("300")).toBe(300);
  });
  it("refuses anything else, naming the variable", () => {
    for (const bad of ["-1", "301", "1.5", "fast"]) expect(() => read(bad)).toThrow(ConfigError);
    expect(() => read("fast")).toThrow(/HEAP_GROWING_PERCENT/);
  });
});
