// The stormwater surface's SiteInput: the one field table behind POST /determine (JSON), GET /requirements
// (query text) and the MCP tools.
import type { FieldTable } from "../../http/fields.js";

export const ACTIVITIES = ["construction", "industrial"] as const;

export const SITE_FIELDS: FieldTable = {
  state: { type: "string", description: "Two-letter state, territory or DC code." },
  activity: { type: "string", enum: ACTIVITIES, description: "construction or industrial; no default, the two are governed by different permits." },
  acres: { type: "number", minimum: 0, target: "disturbedAcres", description: "Alias of disturbedAcres, read first." },
  disturbedAcres: { type: "number", minimum: 0, description: "Total acres disturbed over the project's life; the 1-acre threshold is measured on it." },
  maxDisturbedAcresAtOneTime: { type: "number", minimum: 0, nullable: true, description: "Greatest acreage open at any one time; omitted means an unphased site (the whole total open at once)." },
  partOfLargerPlan: { type: "boolean", description: "Part of a larger common plan of development or sale. Default false." },
  sectorCode: { type: "string", nullable: true, description: "Industrial sector code; industrial sites only." },
  startDate: { type: "string", format: "date", nullable: true, description: "yyyy-mm-dd; recorded, does not change the verdict." },
  endDate: { type: "string", format: "date", nullable: true, description: "yyyy-mm-dd; recorded, does not change the verdict." },
  onTribalLand: { type: "boolean", description: "In Indian country, where EPA keeps permitting authority." },
  federalFacility: { type: "boolean", description: "A federal facility (EPA is the authority for these in some states)." },
  dischargesToImpairedWater: { type: "boolean", nullable: true, description: "Sediment- or nutrient-impaired receiving water. Null or omitted = unchecked, never assumed false." },
  dischargesToTier2Water: { type: "boolean", nullable: true, description: "Tier 2, 2.5 or 3 receiving water. Null or omitted = unchecked, never assumed false." },
  aridClimate: { type: "boolean", description: "Arid, semi-arid or drought-stricken area." },
};
