// Property: on any input the engine either answers or throws ConnectError InvalidArgument, and
import { TODAY } from "../testing.js";
// identical input gives a byte-identical determination.
import { create, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { DeterminationSchema, SiteInputSchema } from "@permits/proto/stormwater/v1/stormwater";
import fc from "fast-check";
import { expect, test } from "vitest";
import { loadDataset } from "../dataset.js";
import { determineStormwater, requirementsForSite } from "./index.js";

const ds = loadDataset();
const opt = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
const acres = fc.oneof(
  { arbitrary: fc.double({ min: 0, max: 50, noNaN: true }), weight: 6 },
  fc.double({ min: -10, max: 50 }),
  fc.constantFrom(0, 0.999, 1, 5, 5.0001, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0),
  fc.double(),
);
const date = fc.oneof(
  { weight: 6, arbitrary: fc.date({ min: new Date("1990-01-01"), max: new Date("2100-12-31"), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)) },
  fc.constantFrom("2026-02-30", "2026-13-01", "", "2026-2-3", "not a date"),
  fc.string(),
);
const site = fc.record({
  state: fc.oneof({ arbitrary: fc.constantFrom(...ds.codes), weight: 8 }, fc.constantFrom("ma", " ca ", "", "ZZ", "XYZ"), fc.string({ maxLength: 3 })),
  activity: fc.oneof({ arbitrary: fc.constantFrom("construction", "industrial"), weight: 8 }, fc.constantFrom("", "Industrial", "mining"), fc.string({ maxLength: 12 })),
  disturbedAcres: fc.option(acres, { nil: undefined, freq: 10 }),
  maxDisturbedAcresAtOneTime: opt(acres),
  partOfLargerPlan: opt(fc.boolean()),
  sectorCode: opt(fc.string({ maxLength: 4 })),
  startDate: opt(date),
  endDate: opt(date),
  onTribalLand: opt(fc.boolean()),
  federalFacility: opt(fc.boolean()),
  dischargesToImpairedWater: opt(fc.boolean()),
  dischargesToTier2Water: opt(fc.boolean()),
  aridClimate: opt(fc.boolean()),
});

/**
 * Inputs tried, on a fixed seed (the same sequence, so a short run is the start of a long one):
 * 500 in npm test; `npm run fuzz` and CI's last Node version run 3,000 (PROPERTY_RUNS), which took
 * this file 20 s of its 30 on a loaded 2-core machine (2026-11-28).
 */
const RUNS = Number(process.env.PROPERTY_RUNS ?? 500);

test(`never throws anything but InvalidArgument, and is deterministic (${RUNS} inputs)`, () => {
  let answered = 0;
  fc.assert(
    fc.property(site, (s) => {
      const input = create(SiteInputSchema, s);
      let a;
      try {
        a = determineStormwater(ds, input, TODAY);
      } catch (e) {
        expect(e).toBeInstanceOf(ConnectError);
        expect((e as ConnectError).code).toBe(Code.InvalidArgument);
        return;
      }
      answered++;
      const b = determineStormwater(ds, create(SiteInputSchema, s), TODAY);
      expect(toBinary(DeterminationSchema, b)).toEqual(toBinary(DeterminationSchema, a));
      expect(a.notices.length).toBeGreaterThanOrEqual(2);
      expect(requirementsForSite(ds, input, TODAY).requirementCount).toBe(a.requirements.length);
    }),
    { numRuns: RUNS, seed: 20261121 },
  );
  // Most inputs are refused; at least a tenth must reach a determination, or little is tried.
  expect(answered).toBeGreaterThan(RUNS / 10);
});

test("throughput: more than 50,000 determinations per second on one core", () => {
  const inputs = [
    create(SiteInputSchema, { state: "MA", activity: "construction", disturbedAcres: 3.2 }),
    create(SiteInputSchema, { state: "CA", activity: "construction", disturbedAcres: 12, dischargesToImpairedWater: false }),
    create(SiteInputSchema, { state: "NM", activity: "construction", disturbedAcres: 7, maxDisturbedAcresAtOneTime: 4, dischargesToImpairedWater: false, dischargesToTier2Water: false }),
    create(SiteInputSchema, { state: "GA", activity: "construction", disturbedAcres: 2, onTribalLand: true }),
  ];
  for (let i = 0; i < 20_000; i++) determineStormwater(ds, inputs[i % inputs.length], TODAY);
  const n = 100_000;
  const t = performance.now();
  for (let i = 0; i < n; i++) determineStormwater(ds, inputs[i % inputs.length], TODAY);
  const perSecond = n / ((performance.now() - t) / 1000);
  expect(perSecond).toBeGreaterThan(50_000);
});
