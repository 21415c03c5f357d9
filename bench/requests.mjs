// The request mix of the benchmark: real inputs of both documents, the same for every deployment.
// Every body here must answer 2xx (the harness counts anything else as an error).

/** Stormwater-surface SiteInputs: EPA-permitted states (with requirements) and state-permitted ones (without). */
export const SITES = [
  { state: "NM", activity: "construction", acres: 3 },
  { state: "TX", activity: "construction", acres: 3 },
  { state: "MA", activity: "construction", acres: 12, maxDisturbedAcresAtOneTime: 4, dischargesToImpairedWater: true },
  { state: "CA", activity: "construction", acres: 25, partOfLargerPlan: true },
  { state: "NH", activity: "construction", acres: 1.5, dischargesToImpairedWater: false, dischargesToTier2Water: true },
  { state: "CO", activity: "construction", acres: 0.6 },
  { state: "DC", activity: "construction", acres: 2, maxDisturbedAcresAtOneTime: 2, aridClimate: false },
  { state: "FL", activity: "construction", acres: 40, maxDisturbedAcresAtOneTime: 10 },
  { state: "PR", activity: "construction", acres: 7, dischargesToImpairedWater: null, startDate: "2026-03-01", endDate: "2026-11-30" },
  { state: "NY", activity: "construction", acres: 0.4, partOfLargerPlan: true },
  { state: "NM", activity: "construction", acres: 55, maxDisturbedAcresAtOneTime: 20, aridClimate: true, dischargesToImpairedWater: true },
  { state: "WA", activity: "construction", acres: 9 },
  { state: "MA", activity: "construction", acres: 0.5 },
  { state: "GA", activity: "construction", acres: 4.2, onTribalLand: false },
  { state: "TX", activity: "construction", acres: 18, onTribalLand: true },
  { state: "OH", activity: "construction", acres: 6, federalFacility: true },
];

/** GET /api/v1/requirements query strings (construction, with and without requirements). */
export const REQUIREMENT_QUERIES = [
  "state=MA&activity=construction&acres=5",
  "state=NM&activity=construction&acres=3",
  "state=NH&activity=construction&acres=12",
  "state=DC&activity=construction&acres=1.2",
  "state=PR&activity=construction&acres=30",
  "state=TX&activity=construction&acres=3",
  "state=CA&activity=construction&acres=8",
  "state=CO&activity=construction&acres=2",
];

/** NWP-surface ProjectInputs: district codes and activities from data/nwp, every resource type. */
export const PROJECTS = [
  { state: "CA", district: "SPK", activity: "residential-development", aquaticResourceType: "wetland", permanentImpactAcres: 0.3 },
  { state: "TX", district: "SWF", activity: "commercial-development", aquaticResourceType: "stream", permanentImpactAcres: 0.05, streamBedLinearFeet: 180 },
  { state: "FL", district: "SAJ", activity: "road-crossing", aquaticResourceType: "wetland", permanentImpactAcres: 0.6 },
  { state: "NY", district: "NAN", activity: "utility-line", aquaticResourceType: "open-water", permanentImpactAcres: 0.1, temporaryImpactAcres: 0.4 },
  { state: "LA", district: "MVN", activity: "bank-stabilization", aquaticResourceType: "tidal", permanentImpactAcres: 0.02, streamBedLinearFeet: 400 },
  { state: "NC", district: "SAW", activity: "living-shoreline", aquaticResourceType: "tidal", permanentImpactAcres: 0.4 },
  { state: "WA", district: "NWS", activity: "recreational-facility", aquaticResourceType: "wetland", permanentImpactAcres: 0.08 },
  { state: "OH", district: "LRH", activity: "oil-gas-pipeline", aquaticResourceType: "stream", permanentImpactAcres: 0.2, streamBedLinearFeet: 120 },
  { state: "CO", district: "SPA", activity: "stormwater-management", aquaticResourceType: "wetland", permanentImpactAcres: 0.25 },
  { state: "IA", district: "MVR", activity: "agricultural-activity", aquaticResourceType: "wetland", permanentImpactAcres: 0.4 },
  { state: "PA", district: "NAB", activity: "mining", aquaticResourceType: "stream", permanentImpactAcres: 0.3, streamBedLinearFeet: 250 },
  { state: "NV", district: "SPK", activity: "renewable-energy", aquaticResourceType: "wetland", permanentImpactAcres: 1.2 },
  { state: "MA", district: "NAE", activity: "aquatic-restoration", aquaticResourceType: "stream", permanentImpactAcres: 0.5 },
  { state: "MI", district: "LRE", activity: "maintenance", aquaticResourceType: "open-water", permanentImpactAcres: 0.01 },
  { state: "GA", district: "SAS", activity: "boat-ramp", aquaticResourceType: "open-water", permanentImpactAcres: 0.03 },
  { state: "TX", district: "SWG", activity: "residential-development", aquaticResourceType: "wetland", permanentImpactAcres: 0.1 },
];

/** A batch of exactly 100 projects cycling through the mix with varied acreages. */
export function batchOf100() {
  const projects = [];
  for (let i = 0; i < 100; i++) {
    const p = { ...PROJECTS[i % PROJECTS.length] };
    p.permanentImpactAcres = Math.round((p.permanentImpactAcres * (0.5 + (i % 7) * 0.25)) * 1000) / 1000;
    projects.push(p);
  }
  return { projects };
}
