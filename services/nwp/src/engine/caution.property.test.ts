// The rule of caution as a property (issue 27): over generated datasets and inputs, no answer is
// more relaxed than the same answer computed with every fact that may not relax removed. Facts
// that may not relax can only ever make an answer more cautious.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mayRelax } from "@permits/rules";
import { loadDataset } from "../dataset.js";
import { TODAY } from "../testing.js";
import { compileDataset, decide, type BasisWord, type DeterminationOut, type RawDataset, type RawLimit, type RawPermit, type ResourceType } from "./index.js";

const real = loadDataset().raw;
const ACTIVITY = "utility-line"; // two candidates (NWPs 57 and 58)
const URL = "https://www.govinfo.gov/content/pkg/FR-2026-01-08/html/2026-00121.htm";
const TYPES: ResourceType[] = ["wetland", "stream", "open-water", "tidal"];

// Weighted towards facts that may relax, so relaxed answers (eligible, no PCN) are reached often.
const basis = fc.oneof(
  { arbitrary: fc.constant<BasisWord>("official-text"), weight: 4 },
  { arbitrary: fc.constantFrom<BasisWord>("agency-form", "prior-edition", "secondary", "unsourced"), weight: 4 },
);
const unchangedBy = fc.constantFrom(undefined, `The 2026 rule (${URL}) did not change it.`, "A consultant (https://www.example.com/nwps) says it did not change.");
const grounding = fc.record({ basis, unchangedBy }).map((g) => ({
  ...g,
  unchangedBy: g.basis === "prior-edition" ? g.unchangedBy : undefined,
  confidence: (g.basis === "official-text" || g.basis === "agency-form" ? "verified" : "unverified") as "verified" | "unverified",
  sourceUrl: URL,
}));
const limit = (unit: "acres" | "linear feet") => fc.record({
  g: grounding,
  appliesTo: fc.subarray(TYPES, { minLength: 1 }),
  value: unit === "acres" ? fc.constantFrom(0.1, 1 / 3, 0.5, 1) : fc.constantFrom(100, 300, 500),
}).map(({ g, appliesTo, value }): RawLimit => ({ ...g, appliesTo, value, unit, display: `${value} ${unit}`, derivation: "Generated limit for the property test." }));

const permitFacts = fc.record({
  acreage: fc.array(limit("acres"), { maxLength: 2 }),
  linear: fc.option(limit("linear feet"), { nil: null }),
  noLinear: fc.option(grounding, { nil: undefined }),
  notification: fc.record({ held: fc.boolean(), g: grounding }),
  conditions: fc.array(fc.record({ kind: fc.constantFrom("always", "acreage-above", "linear-feet-above"), threshold: fc.constantFrom(0.05, 0.1, 200), g: grounding }), { maxLength: 2 }),
  unscreened: fc.boolean(),
});
type PermitFacts = typeof permitFacts extends fc.Arbitrary<infer T> ? T : never;

function apply(p: RawPermit, f: PermitFacts): void {
  p.acreageLimits = f.acreage;
  p.streamBedLinearFeetLimit = f.linear;
  p.noStreamBedLinearFeetLimit = f.noLinear && { ...f.noLinear, summary: "Generated: no stream-bed limit." };
  p.notification = { ...f.notification.g, held: f.notification.held, summary: "Generated notification terms." };
  p.pcnConditions = f.conditions.map((c) => ({
    ...c.g, kind: c.kind as "always", unit: c.kind === "always" ? "" : c.kind === "acreage-above" ? "acres" : "linear feet",
    threshold: c.kind === "always" ? undefined : c.threshold, description: "Generated condition.",
  }));
  p.unscreenedPcnTriggers = f.unscreened ? ["Generated trigger on facts the request does not carry."] : [];
}

/** The same permit with every fact that may not relax removed ("not held"). */
function withoutWeakFacts(p: RawPermit): void {
  p.acreageLimits = p.acreageLimits.filter(mayRelax);
  if (p.streamBedLinearFeetLimit && !mayRelax(p.streamBedLinearFeetLimit)) p.streamBedLinearFeetLimit = null;
  if (p.noStreamBedLinearFeetLimit && !mayRelax(p.noStreamBedLinearFeetLimit)) delete p.noStreamBedLinearFeetLimit;
  if (!mayRelax(p.notification)) p.notification = { ...p.notification, held: false };
  p.pcnConditions = p.pcnConditions.filter(mayRelax);
}

function dataset(facts: PermitFacts[], strip: boolean) {
  const raw: RawDataset = structuredClone(real);
  const numbers = raw.activities.find((a) => a.id === ACTIVITY)!.nwpNumbers;
  numbers.forEach((n, i) => {
    const p = raw.permits.find((x) => x.number === n)!;
    apply(p, facts[i]);
    if (strip) withoutWeakFacts(p);
  });
  return compileDataset(raw);
}

// How relaxed each summary is: higher is more relaxed.
const VERDICT = { "individual-permit-likely": 0, "insufficient-data": 1, "nwp-with-pcn": 2, "nwp-likely": 3 } as const;
const ELIGIBLE = (e: boolean | null) => (e === true ? 2 : e === null ? 1 : 0);

const admitted = (d: DeterminationOut) => d.candidates.filter((c) => c.eligible === true).map((c) => c.number).join(",");

/**
 * Each candidate is never more eligible than without the weak facts. The verdict and pcn.required
 * aggregate over the admitted candidates (a PCN is required if any admitted one needs it), so they
 * are compared where both answers admit the same candidates: where removing a weak limit admits
 * one more candidate, that candidate's own PCN terms can only add caution to the floor's aggregate
 * (seen: NWP 58 admitted with no PCN on official terms, NWP 57 unknown on an unsourced stream-bed
 * limit; without that limit 57 is admitted too and its unread PCN terms make the floor's PCN unknown).
 * Returns whether the aggregates were compared.
 */
function notMoreRelaxed(d: DeterminationOut, floor: DeterminationOut): boolean {
  d.candidates.forEach((c, i) => expect(ELIGIBLE(c.eligible)).toBeLessThanOrEqual(ELIGIBLE(floor.candidates[i].eligible)));
  if (admitted(d) !== admitted(floor)) return false;
  expect(VERDICT[d.verdict]).toBeLessThanOrEqual(VERDICT[floor.verdict]);
  // "No PCN" is the relaxed PCN answer (true and null are both cautious, on different candidates).
  if (d.pcn.required === false) expect(floor.pcn.required).toBe(false);
  return true;
}

describe("property: no answer is more relaxed than the same answer without the facts that may not relax", () => {
  it("over generated permit facts (limits, no-limit facts, notification terms, PCN conditions on every basis) and inputs", () => {
    const input = fc.record({
      aquaticResourceType: fc.constantFrom(...TYPES),
      permanentImpactAcres: fc.constantFrom(0, 0.05, 0.1, 0.3, 0.5, 0.7, 2),
      streamBedLinearFeet: fc.option(fc.constantFrom(50, 150, 400, 5000), { nil: undefined }),
    });
    let relaxedSeen = 0;
    let aggregatesCompared = 0;
    fc.assert(fc.property(fc.tuple(permitFacts, permitFacts), input, (facts, i) => {
      const project = { state: "TX", district: "SWF", activity: ACTIVITY, ...i };
      const d = decide(dataset(facts, false), project, TODAY);
      const floor = decide(dataset(facts, true), project, TODAY);
      if (notMoreRelaxed(d, floor)) aggregatesCompared++;
      if (d.candidates.some((c) => c.eligible === true) || d.pcn.required === false) relaxedSeen++;
    }), { numRuns: 400 });
    // The generator reaches relaxed answers (a candidate admitted, no PCN) often, and the verdicts are
    // compared in most runs, so the property is not vacuous.
    expect(relaxedSeen).toBeGreaterThan(20);
    expect(aggregatesCompared).toBeGreaterThan(200);
  });
});
