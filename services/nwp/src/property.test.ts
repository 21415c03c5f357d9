// Random requests only ever produce a determination or InvalidArgument, and the same request
// always produces the same answer.
import { TODAY } from "./testing.js";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { badRequestOf } from "@permits/rules";
import { DetermineRequestSchema, Verdict } from "@permits/proto/nwp/v1/nwp";
import { determine } from "./engine/index.js";
import { createNwpService } from "./service.js";
import { isGovUrl, realDataset, urlsIn } from "./testing.js";

const ds = realDataset();
const svc = createNwpService(ds, () => TODAY);

const id = (known: string[]) => fc.oneof(fc.constantFrom(...known), fc.constantFrom(...known).map((s) => s.toLowerCase()), fc.string({ maxLength: 6 }), fc.constant(""));
const num = fc.oneof(fc.double(), fc.double({ min: 0, max: 2, noNaN: true }), fc.constantFrom(0, 0.1, 0.5, 1 / 3, -0, Number.NaN, Number.POSITIVE_INFINITY, -1));
const anyValue = fc.oneof(fc.constant(undefined), fc.constant(null), fc.integer(), fc.string(), fc.boolean());
const opt = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });

const looseProject = fc.record({
  state: fc.oneof(id(ds.stateCodes), anyValue),
  district: fc.oneof(id(ds.districtCodes), anyValue),
  activity: fc.oneof(id(ds.activityIds), anyValue),
  aquaticResourceType: fc.oneof(id(ds.resourceTypes), anyValue),
  permanentImpactAcres: fc.oneof(num, anyValue),
  temporaryImpactAcres: opt(num),
  streamBedLinearFeet: fc.oneof(opt(num), anyValue),
}, { requiredKeys: [] });

function outcome(run: () => unknown): string {
  try {
    return JSON.stringify({ ok: run() });
  } catch (e) {
    expect(e).toBeInstanceOf(ConnectError);
    expect((e as ConnectError).code).toBe(Code.InvalidArgument);
    expect(badRequestOf(e as ConnectError)!.violations.length).toBeGreaterThan(0);
    return JSON.stringify({ err: (e as ConnectError).rawMessage, v: badRequestOf(e as ConnectError)!.violations });
  }
}

describe("property: engine", () => {
  it("random inputs give a determination or InvalidArgument, deterministically", () => {
    fc.assert(fc.property(looseProject, (p) => {
      const a = outcome(() => determine(ds, p, TODAY));
      expect(outcome(() => determine(ds, structuredClone(p), TODAY))).toBe(a);
      const parsed = JSON.parse(a);
      if (parsed.ok) {
        const d = parsed.ok.determination;
        expect(["nwp-likely", "nwp-with-pcn", "individual-permit-likely", "insufficient-data"]).toContain(d.verdict);
        // Never null: a trigger makes it true; without one it is false only where the terms may relax, and says why.
        expect(typeof d.pcn.required).toBe("boolean");
        expect(d.pcn.because).not.toBe("");
        if (d.pcn.triggers.length > 0) expect(d.pcn.required).toBe(true);
        if (d.pcn.required === false) expect(d.candidates.some((c: { eligible: boolean | null }) => c.eligible === true)).toBe(true);
        if (d.verdict === "nwp-likely") expect(d.pcn.required).toBe(false);
        expect(d.pcn.reviewDays).toBe(45);
        expect(d.coverageGaps[0]).toMatch(/waters of the United States/);
        expect(d.districtLayer.conditionsCompiled).toBe(false);
        for (const c of d.candidates) {
          const codes = c.reasons.map((r: { code: string }) => r.code);
          if (c.eligible === null) expect(codes.some((x: string) => /not-held|not-given|unsourced|not-confirmed/.test(x))).toBe(true);
          if (c.eligible === false) expect(codes.some((x: string) => x.endsWith("exceeds-limit"))).toBe(true);
        }
        expect(urlsIn(d).filter((u) => !isGovUrl(u))).toEqual([]);
      }
    }), { numRuns: 1500 });
  });
});

describe("property: service", () => {
  const protoProject = fc.record({
    state: id(ds.stateCodes), district: id(ds.districtCodes), activity: id(ds.activityIds), aquaticResourceType: id(ds.resourceTypes),
    permanentImpactAcres: opt(num), temporaryImpactAcres: opt(num), streamBedLinearFeet: opt(num),
  });
  it("typed requests give a response or InvalidArgument, deterministically", async () => {
    await fc.assert(fc.asyncProperty(protoProject, async (p) => {
      const req = create(DetermineRequestSchema, { project: p });
      const once = async () => {
        try {
          const r = await svc.determine(req, {} as never);
          expect(r.determination?.verdict).not.toBe(Verdict.UNSPECIFIED);
          return JSON.stringify(r.determination);
        } catch (e) {
          expect(e).toBeInstanceOf(ConnectError);
          expect((e as ConnectError).code).toBe(Code.InvalidArgument);
          return (e as ConnectError).rawMessage;
        }
      };
      expect(await once()).toBe(await once());
    }), { numRuns: 500 });
  });
});
