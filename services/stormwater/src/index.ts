// The front door of @permits/stormwater: the service for a host (build), its handlers
// (createStormwaterService), the dataset it answers from, its engine, and what the data tools
// (scripts/data-*.mjs) read: the fact snapshot and the holdings tallies.
export { build } from "./build.js";
export * from "./changelog.js";
export * from "./dataset.js";
export * from "./engine/index.js";
export * from "./holdings.js";
export * from "./service.js";
