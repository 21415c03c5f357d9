// The stormwater dataset as a fact index (packages/rules/src/fact-index.ts): the unit of the
// changelog (GET /api/v1/changes) and of the report of facts by age. Grouped by what an
// integrator's stored answers turn on: a jurisdiction, a permit (the federal CGP's requirements
// belong to it), or an EPA area (Indian country, federal facilities, other areas).
import { type FactIndex, factIndexOnce, type GroupOf, type Snapshot } from "@permits/rules";
import type { RawData } from "./engine/raw.js";
import type { Dataset } from "./engine/types.js";

export function stormwaterFacts(raw: RawData): FactIndex {
  const groupOf: GroupOf = ([file, a, b]) => {
    if (file === "jurisdictions") return { kind: "jurisdiction", id: a };
    if (file === "permits") return { kind: "permit", id: a };
    if (file === "cgp-requirements") return { kind: "permit", id: raw.cgpRequirements.permitId };
    return { kind: "area", id: a === "otherAreas" ? b : a };
  };
  return factIndexOnce(
    raw,
    () => ({ jurisdictions: raw.jurisdictions.jurisdictions, permits: raw.permits.permits, "cgp-requirements": raw.cgpRequirements, "epa-areas": raw.epaAreas }),
    groupOf,
  );
}

/** The loaded dataset as its changelog snapshot (previousVersion is set where it is released). */
export function stormwaterSnapshot(ds: Dataset): Snapshot {
  return { dataset: "stormwater", datasetVersion: ds.version, previousVersion: null, facts: stormwaterFacts(ds.raw) };
}
