import { describe, expect, it } from "vitest";
import { deepFreeze, derivedOnce } from "./freeze.js";

describe("deepFreeze", () => {
  it("freezes nested objects, arrays and Map entries", () => {
    const v = deepFreeze({ a: [{ b: 1 }], m: new Map([["k", { c: 2 }]]) });
    expect(Object.isFrozen(v.a[0])).toBe(true);
    expect(Object.isFrozen(v.m.get("k"))).toBe(true);
    expect(() => (v.a as unknown[]).push(1)).toThrow(TypeError);
  });
});

describe("derivedOnce", () => {
  it("builds a part once per owner and key, frozen, and shares it by identity", () => {
    const owner = {};
    let builds = 0;
    const build = () => (builds++, { text: `part ${builds}`, list: ["x"] });
    const first = derivedOnce(owner, "k", build);
    expect(derivedOnce(owner, "k", build)).toBe(first);
    expect(builds).toBe(1);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first.list)).toBe(true);
    // Another key, or the same key on another owner, is another part.
    expect(derivedOnce(owner, 2, build).text).toBe("part 2");
    expect(derivedOnce({}, "k", build).text).toBe("part 3");
    expect(builds).toBe(3);
  });
});
