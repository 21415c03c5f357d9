// The pricing data restates the tier table for buyers: it must never promise other limits than
// the ones the rate limiter enforces.
import { describe, expect, it } from "vitest";
import { loadPolicies } from "@permits/ratelimit";
import { PRICING } from "./pricing.js";

describe("pricing", () => {
  const tiers = loadPolicies();
  const plans = PRICING.surfaces.flatMap((s) => s.plans.map((p) => ({ policy: `${s.surface}.${p.id}`, plan: p })));

  it.each(plans)("$policy states exactly the windows of the tier table", ({ policy, plan }) => {
    const windows = tiers.get(policy)?.windows;
    expect(windows, policy).toBeDefined();
    expect(plan.limits.map((l) => [l.window, l.limit, "hardCeiling" in l && l.hardCeiling === true])).toEqual(windows!.map((w) => [w.name, w.limit, w.quota]));
  });

  it("lists every tier of both documents", () => {
    const listed = new Set(plans.map((p) => p.policy));
    // `recover` is key recovery's per-IP limit, not a plan anyone is on.
    const tiersOfDocuments = [...tiers.values()].filter((p) => p.document !== "internal" && p.id !== "recover").map((p) => p.id);
    expect(tiersOfDocuments.filter((id) => !listed.has(id))).toEqual([]);
  });
});
