// Retention dates and the periods read from a saved answer (pure; no database).
import { describe, expect, it } from "vitest";
import { addYears, retentionFor } from "./retention.js";

describe("retention", () => {
  it("adds years, taking 29 February to 1 March (never before either database's own check)", () => {
    expect(addYears("2026-11-28", 3)).toBe("2029-11-28");
    expect(addYears("2024-02-29", 3)).toBe("2027-03-01");
    expect(addYears("2024-02-29", 4)).toBe("2028-02-29");
  });

  it("reads only whole-year retention.* periods; anything else leaves the three-year floor", () => {
    const answer = (requirements: unknown[]) => ({ requirements });
    expect(retentionFor("2026-01-10", answer([{ id: "retention.records", unit: "days", value: 3000 }]), "").retainUntil).toBe("2029-01-10");
    expect(retentionFor("2026-01-10", answer([{ id: "retention.records", unit: "years", value: "5" }]), "").retainUntil).toBe("2029-01-10");
    expect(retentionFor("2026-01-10", answer([{ id: "inspection.frequency", unit: "years", value: 7 }]), "").retainUntil).toBe("2029-01-10");
    expect(retentionFor("2026-01-10", null, "").requirementId).toBe("");
    const longest = retentionFor("2026-01-10", answer([{ id: "retention.a", unit: "years", value: 4, label: "A" }, { id: "retention.b", unit: "years after termination", value: 6, label: "B" }]), "");
    expect(longest).toMatchObject({ retainUntil: "2032-01-10", requirementId: "retention.b" });
    expect(longest.basis).toBe('Kept 6 years after the close date 2026-01-10: the site\'s permit asks for 6 years ("B", retention.b, held as unverified in the permit answer saved for the site), longer than the federal permit\'s three years.');
  });
});
