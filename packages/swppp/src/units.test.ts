// The unit table restates the dataset: every unit the dataset holds beside an inspection,
// corrective or retention value must be one UNITS lists for its id (or be set apart in
// NOT_COUNTED), and no such id holding a number may be missing from the table.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { NOT_COUNTED, UNITS } from "./rules-held.js";

const DATA = new URL("../../../data/stormwater/", import.meta.url);
type Row = Record<string, unknown>;

/** Every requirement of the dataset with the id of the permit that holds it. */
function requirements(x: unknown, permit: string, out: { permit: string; r: Row }[] = []): { permit: string; r: Row }[] {
  if (Array.isArray(x)) for (const v of x) requirements(v, permit, out);
  else if (x && typeof x === "object") {
    const o = x as Row;
    const here = Array.isArray(o.requirements) && typeof (o.id ?? o.permitId) === "string" ? String(o.id ?? o.permitId) : permit;
    if (typeof o.id === "string" && typeof o.kind === "string") out.push({ permit: here, r: o });
    for (const v of Object.values(o)) requirements(v, here, out);
  }
  return out;
}

describe("UNITS against data/stormwater", () => {
  const held = ["cgp-requirements.json", "jurisdictions.json"].flatMap((f) => requirements(JSON.parse(readFileSync(new URL(f, DATA), "utf8")), ""));
  const scheduled = held.filter(({ r }) => /^(inspection|corrective|retention)\./.test(r.id as string));

  it("every unit the dataset holds for an id the table lists is one the table gives (or is set apart)", () => {
    const withUnit = held.filter(({ r }) => typeof r.unit === "string" && (UNITS[r.id as string] || /^(inspection|corrective|retention)\./.test(r.id as string)));
    const wrong = withUnit.filter(({ permit, r }) => NOT_COUNTED[`${permit}/${r.id}`] !== r.unit && !UNITS[r.id as string]?.as.includes(r.unit as string));
    expect(wrong.map(({ permit, r }) => `${permit}/${r.id}: ${r.unit}`)).toEqual([]);
    expect(withUnit.length).toBeGreaterThan(20);
    expect(withUnit.map(({ permit }) => permit)).toContain("cgp-2022");
  });

  it("every such id with a number in the dataset has a unit in the table", () => {
    const numeric = (r: Row) => typeof r.value === "number" || Object.values((r.cases ?? {}) as Record<string, { value?: unknown }>).some((c) => typeof c.value === "number");
    expect(scheduled.filter(({ r }) => numeric(r) && !UNITS[r.id as string]).map(({ r }) => r.id)).toEqual([]);
  });
});
