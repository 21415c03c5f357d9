import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { create } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { Basis, Confidence } from "@permits/proto/common/v1/common";
import { Coverage, DeterminationSchema, RequirementKind, RequirementSchema, SiteInputSchema } from "@permits/proto/stormwater/v1/stormwater";
import { DeterminationSchema as NwpDetermination, Verdict } from "@permits/proto/nwp/v1/nwp";
import { RawJson, serializeBody, toPublicJson } from "./public-json.js";

const stringify = (v: unknown) => serializeBody(v).toString("utf8");

describe("public JSON of messages", () => {
  it("writes unset optionals as null, enums as the contract's words, Value as plain JSON", () => {
    const requirement = create(RequirementSchema, {
      id: "stabilization.complete",
      kind: RequirementKind.STABILIZATION,
      label: "Complete",
      detail: "d",
      value: create(ValueSchema, { kind: { case: "numberValue", value: 7 } }),
      citation: { sourceCitation: "Part 2.2.14", sourceUrl: "https://www.epa.gov/x", confidence: Confidence.UNVERIFIED, basis: Basis.PRIOR_EDITION },
    });
    const d = create(DeterminationSchema, {
      coverage: Coverage.NOT_REQUIRED,
      coverageReason: 'quote " and \\ backslash',
      requirements: [requirement],
      input: create(SiteInputSchema, { state: "NM", activity: "construction", disturbedAcres: 0.5, partOfLargerPlan: false }),
    });
    const json = JSON.parse(toPublicJson(DeterminationSchema, d, "snake").text);
    expect(json.coverage).toBe("not_required");
    expect(json.coverageReason).toBe('quote " and \\ backslash');
    expect(json.permit).toBeNull();
    expect(json.confidence).toBeNull();
    expect(json.requirements[0]).toEqual({
      id: "stabilization.complete", kind: "stabilization", label: "Complete", detail: "d", value: 7,
      // A basis reads the same on both surfaces: hyphens even in document 1's snake_case vocabulary.
      citation: { sourceCitation: "Part 2.2.14", sourceUrl: "https://www.epa.gov/x", quote: null, confidence: "unverified", basis: "prior-edition", checkedOn: null }, because: null, unit: null,
    });
    expect(json.input).toMatchObject({ disturbedAcres: 0.5, partOfLargerPlan: false, dischargesToImpairedWater: null, maxDisturbedAcresAtOneTime: null });
  });

  it("writes document 2 enums with hyphens", () => {
    const d = create(NwpDetermination, { verdict: Verdict.INDIVIDUAL_PERMIT_LIKELY });
    expect(JSON.parse(toPublicJson(NwpDetermination, d, "kebab").text).verdict).toBe("individual-permit-likely");
  });

  it("gives the same text for the same message, and a fresh one after a new message", () => {
    const a = create(SiteInputSchema, { state: "TX", activity: "construction" });
    const first = toPublicJson(SiteInputSchema, a, "snake").text;
    expect(toPublicJson(SiteInputSchema, a, "snake").text).toBe(first);
    const b = create(SiteInputSchema, { state: "MA", activity: "construction" });
    expect(JSON.parse(toPublicJson(SiteInputSchema, b, "snake").text).state).toBe("MA");
  });
});

describe("frozen messages", () => {
  it("are written from the cached bytes the same way every time, inside fresh messages", () => {
    const site = Object.freeze(create(SiteInputSchema, { state: "PR", activity: "construction", sectorCode: "señal “quoted” – dash" }));
    const a = create(DeterminationSchema, { input: site, coverageReason: "first" });
    const b = create(DeterminationSchema, { input: site, coverageReason: "second" });
    const ja = JSON.parse(toPublicJson(DeterminationSchema, a, "snake").text);
    const jb = JSON.parse(toPublicJson(DeterminationSchema, b, "snake").text);
    expect(ja.input).toEqual(jb.input);
    expect(ja.input.sectorCode).toBe("señal “quoted” – dash");
    expect([ja.coverageReason, jb.coverageReason]).toEqual(["first", "second"]);
  });
});

describe("frozen lists", () => {
  it("are written from cached bytes, identical to the same list unfrozen, empty ones included", () => {
    const notices = Object.freeze(["first “notice”", 'second "quoted"']);
    const shared = create(DeterminationSchema, { notices: notices as string[], coverageReason: "a" });
    const again = create(DeterminationSchema, { notices: notices as string[], coverageReason: "b" });
    const plain = create(DeterminationSchema, { notices: [...notices], coverageReason: "a" });
    const empty = create(DeterminationSchema, { notices: Object.freeze([]) as unknown as string[] });
    expect(toPublicJson(DeterminationSchema, shared, "snake").text).toBe(toPublicJson(DeterminationSchema, plain, "snake").text);
    expect(JSON.parse(toPublicJson(DeterminationSchema, again, "snake").text)).toMatchObject({ notices: ["first “notice”", 'second "quoted"'], coverageReason: "b" });
    expect(JSON.parse(toPublicJson(DeterminationSchema, empty, "snake").text).notices).toEqual([]);
  });
});

describe("serializeBody", () => {
  it("equals JSON.stringify on plain JSON data", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(stringify(v)).toBe(JSON.stringify(v));
      }),
    );
  });
  it("quotes every string as JSON.stringify does, lone surrogates and control characters included", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.string({ unit: "grapheme" }), (a, b) => {
        expect(stringify([a, b, { [a]: b }])).toBe(JSON.stringify([a, b, { [a]: b }]));
      }),
      { numRuns: 500 },
    );
  });
  it("writes bodies far larger than its 64 KB scratch area, beside cached frozen pieces", () => {
    const big = ["é".repeat(70_000), "x".repeat(200_000), { k: "“".repeat(30_000) }];
    expect(stringify(big)).toBe(JSON.stringify(big));
    const site = Object.freeze(create(SiteInputSchema, { state: "PR", activity: "construction", sectorCode: "ñ".repeat(40_000) }));
    const d = create(DeterminationSchema, { input: site, coverageReason: "“".repeat(50_000) });
    const body = JSON.parse(stringify({ a: toPublicJson(DeterminationSchema, d, "snake"), b: toPublicJson(DeterminationSchema, d, "snake") }));
    expect(body.a.input.sectorCode).toHaveLength(40_000);
    expect(body.b.coverageReason).toBe("“".repeat(50_000));
  });
  it("quotes long message strings the same on every sighting, before and after its text cache starts over", () => {
    const long = (i: number) => `gap ${i}: “quoted” "text" with \\ a backslash, a tab\t and more words to pass sixty-four characters`;
    const body = (i: number) => toPublicJson(DeterminationSchema, create(DeterminationSchema, { notices: [long(i), long(0)] }), "snake").text;
    for (let i = 0; i < 5000; i++) {
      const json = JSON.parse(body(i));
      if (json.notices[0] !== long(i) || json.notices[1] !== long(0)) throw new Error(`round ${i}: ${JSON.stringify(json.notices)}`);
    }
    expect(JSON.parse(body(7)).notices).toEqual([long(7), long(0)]);
  });
  it("splices RawJson text and skips undefined members", () => {
    expect(stringify({ a: RawJson.text('{"x":1}'), b: undefined, c: [RawJson.text("null"), 2] })).toBe('{"a":{"x":1},"c":[null,2]}');
  });
  it("writes numbers as JSON.stringify does", () => {
    const numbers = [0, -0, 1, 1023, 1024, -1, 0.125, 1e21, 1e-7, NaN, Infinity, -Infinity, Number.MAX_SAFE_INTEGER];
    expect(stringify(numbers)).toBe(JSON.stringify(numbers));
    const input = create(SiteInputSchema, { state: "NM", disturbedAcres: 0.1 + 0.2 });
    expect(JSON.parse(toPublicJson(SiteInputSchema, input, "snake").text).disturbedAcres).toBe(0.1 + 0.2);
  });
  it("writes a body begun while another is being written, and goes on after a write that threw", () => {
    // A toJSON that writes a RawJson's text: a second body while the first holds the scratch area.
    const nested = { toJSON: () => JSON.parse(RawJson.text(`{"inner":[${'"x",'.repeat(5000)}"y"]}`).text) };
    const big = "é".repeat(40_000); // past the scratch area's first size, in UTF-8 two bytes each
    const value = { before: big, nested, after: [1, "z"] };
    expect(stringify(value)).toBe(JSON.stringify(value));
    const failing = { toJSON: () => { throw new Error("boom"); } };
    expect(() => stringify({ a: big, failing })).toThrow("boom");
    expect(stringify(value)).toBe(JSON.stringify(value));
    expect(stringify({ ok: true })).toBe('{"ok":true}');
  });
});
