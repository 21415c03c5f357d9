// The NWP surface's determination request: one field table for the REST parser, batch items and MCP.
import type { FieldTable } from "../../http/fields.js";

export const RESOURCE_TYPES = ["wetland", "stream", "open-water", "tidal"] as const;

export const PROJECT_FIELDS: FieldTable = {
  state: { type: "string", description: "Two-letter state or territory code." },
  district: { type: "string", description: "One of the 38 Corps district codes (GET /api/v1/district)." },
  activity: { type: "string", description: "One of the 15 activity identifiers (GET /api/v1/activity)." },
  aquaticResourceType: { type: "string", enum: RESOURCE_TYPES, description: "wetland, stream, open-water or tidal." },
  permanentImpactAcres: { type: "number", minimum: 0, description: "Permanent loss of waters of the United States, in acres." },
  temporaryImpactAcres: { type: "number", minimum: 0, nullable: true, description: "Temporary impact, in acres." },
  streamBedLinearFeet: { type: "number", minimum: 0, nullable: true, description: "Stream-bed loss, in linear feet." },
  startDate: { type: "string", format: "date", nullable: true, description: "Planned start (yyyy-mm-dd). Compared with the ruleset's expiry: a coverage gap where it falls after it; never changes the verdict." },
  endDate: { type: "string", format: "date", nullable: true, description: "Planned end (yyyy-mm-dd), as startDate." },
};

export const PROJECT_REQUIRED = ["state", "district", "activity", "aquaticResourceType", "permanentImpactAcres"];

export const MAX_BATCH = 100;
