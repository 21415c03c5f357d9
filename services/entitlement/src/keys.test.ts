import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  classifyKey,
  deriveLegacyKey,
  generateKeyId,
  generateKeySecret,
  parseLegacyKey,
  randomBase62,
  safeEqual,
  SUBSCRIPTION_ID_RE,
  verifyLegacySignature,
} from "./keys.js";

const SECRET = "unit-test-legacy-secret-0123456789";

describe("document 1 key formats", () => {
  it("issues live and test keys of base62 with at least 32 random characters", () => {
    const live = generateKeySecret("live");
    const test = generateKeySecret("test");
    expect(live).toMatch(/^svc_live_[0-9A-Za-z]{32,}$/);
    expect(test).toMatch(/^svc_test_[0-9A-Za-z]{32,}$/);
    expect(classifyKey(live)).toEqual({ shape: "live" });
    expect(classifyKey(test)).toEqual({ shape: "test" });
    expect(generateKeyId()).toMatch(/^key_[0-9A-Za-z]{16}$/);
    expect(new Set(Array.from({ length: 50 }, () => generateKeySecret("live"))).size).toBe(50);
  });

  it("calls short, empty, oversized or non-base62 keys malformed", () => {
    for (const k of ["", "svc_live_", "svc_live_short", `svc_live_${"a".repeat(31)}`, `svc_test_${"a".repeat(31)}!`, `svc_live_${"a".repeat(600)}`, "hello", "svc_sandbox_public"]) {
      expect(classifyKey(k).shape).toBe("malformed");
    }
  });

  it("draws every base62 character", () => {
    expect(new Set(randomBase62(5000)).size).toBe(62);
  });
});

describe("document 2 legacy keys", () => {
  it("derives <prefix>_<subscriptionId>_<hex signature> and splits it back with underscores in the id", () => {
    const key = deriveLegacyKey(SECRET, "sub_1Abc_DEF");
    expect(key).toMatch(/^nwp_sub_1Abc_DEF_[0-9a-f]{64}$/);
    const parsed = parseLegacyKey(key)!;
    expect(parsed.subscriptionId).toBe("sub_1Abc_DEF");
    expect(verifyLegacySignature(SECRET, parsed.subscriptionId, parsed.signature)).toBe(true);
    expect(verifyLegacySignature("another-secret-of-enough-length", parsed.subscriptionId, parsed.signature)).toBe(false);
  });

  it("rejects wrong prefixes, missing parts and non-hex signatures", () => {
    const sig = "a".repeat(64);
    for (const k of [`xyz_sub_1_${sig}`, `nwp__${sig}`, `nwp_${sig}`, "nwp_sub_1_ABC", `nwp_sub_1_${"A".repeat(64)}`, `nwp_sub 1_${sig}`]) {
      expect(parseLegacyKey(k)).toBeUndefined();
    }
    expect(() => deriveLegacyKey(SECRET, "sub/../x")).toThrow();
  });

  it("property: derive then parse round-trips any valid id, and any one-character change breaks the signature", () => {
    const idArb = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_-]{0,40}$/);
    fc.assert(
      fc.property(idArb, fc.nat(), (id, pos) => {
        expect(SUBSCRIPTION_ID_RE.test(id)).toBe(true);
        const key = deriveLegacyKey(SECRET, id);
        const parsed = parseLegacyKey(key)!;
        expect(parsed.subscriptionId).toBe(id);
        expect(verifyLegacySignature(SECRET, id, parsed.signature)).toBe(true);
        const i = pos % 64;
        const flipped = parsed.signature.slice(0, i) + (parsed.signature[i] === "0" ? "1" : "0") + parsed.signature.slice(i + 1);
        expect(verifyLegacySignature(SECRET, id, flipped)).toBe(false);
      }),
    );
  });
});
