// The rule of caution as a property on the stormwater engine's decisions (issue 27): over
// generated credential facts and sites, "does not apply" and "a deliverable document" (the
// relaxed answers) are given only where the same answer stands with every fact that may not
// relax removed; and a value is withheld exactly when no source states it.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mayRelax } from "@permits/rules";
import { appliesForAcres, appliesForSite, documentStatus, DOCUMENT_STATUS } from "./credential.js";
import { servedValue } from "./messages.js";
import type { RawBasis, RawCredential } from "./raw.js";

const basis = fc.constantFrom<RawBasis>("official-text", "agency-form", "prior-edition", "secondary", "unsourced");
const credential = fc.record({
  gate: fc.constantFrom("open", "gated", "conditional", "unknown"),
  preparer: fc.boolean(),
  trigger: fc.constantFrom("coverage", "acres", "plan", "unresolved", "none"),
  minAcres: fc.constantFrom(0.5, 1, 5),
  largerPlanCounts: fc.boolean(),
  belowThreshold: fc.constantFrom(true, false, null),
  basis,
  unchangedBy: fc.constantFrom(undefined, "EPA says so (https://www.epa.gov/npdes).", "A consultant says so (https://example.com)."),
}).map((c): RawCredential => ({
  ...c,
  summary: "Generated credential.",
  routes: [],
  stateCourseRequired: null,
  sourceCitation: null,
  sourceUrl: "https://www.epa.gov/npdes",
  confidence: c.basis === "official-text" || c.basis === "agency-form" ? "verified" : "unverified",
}) as RawCredential);

/** The same credential with its fact removed where it may not relax: nothing is known of it. */
const floorOf = (c: RawCredential): RawCredential => (mayRelax(c) ? c : { ...c, gate: "unknown" });

describe("property: stormwater decisions never relax on a fact that may not", () => {
  it("a credential 'does not apply' or a deliverable document stands only where it stands without the weak facts", () => {
    const site = fc.record({ covered: fc.constantFrom(true, false, undefined), acres: fc.constantFrom(0, 0.6, 1, 3, 12), plan: fc.boolean() });
    let relaxed = 0;
    fc.assert(fc.property(credential, site, (c, s) => {
      const f = floorOf(c);
      const applies = appliesForSite(c, s.covered, s.acres, s.plan);
      if (applies === false) {
        expect(appliesForSite(f, s.covered, s.acres, s.plan)).toBe(false);
        relaxed++;
      }
      if (appliesForAcres(c, s.acres) === false) expect(appliesForAcres(f, s.acres)).toBe(false);
      if (documentStatus(c, applies) === DOCUMENT_STATUS.deliverable) expect(documentStatus(f, appliesForSite(f, s.covered, s.acres, s.plan))).toBe(DOCUMENT_STATUS.deliverable);
    }), { numRuns: 2000 });
    expect(relaxed).toBeGreaterThan(0);
  });

  it("a value is served at its confidence unless no source states it; document 1's values are always served", () => {
    fc.assert(fc.property(basis, fc.constantFrom(7, 14, "immediately"), fc.boolean(), (b, value, fixed) => {
      const cite = { sourceCitation: "Part 1", sourceUrl: "https://www.epa.gov/npdes", confidence: "unverified" as const, basis: b };
      const served = servedValue(value, "Detail.", cite, "EPA", fixed);
      expect(served.value).toBe(b === "unsourced" && !fixed ? null : value);
      if (served.value === null) expect(served.detail).toBe("Detail. The value is not given because it was not confirmed in any source we could read; confirm with EPA.");
    }));
  });
});
