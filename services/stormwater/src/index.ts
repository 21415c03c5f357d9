// The front door of @permits/stormwater: its handlers (createStormwaterService), the dataset it
// answers from, its engine, and what the data tools (scripts/data-*.mjs) read: the fact snapshot
// and the holdings tallies. Hosts build the service through its manifest (./manifest).
export * from "./changelog.js";
export * from "./dataset.js";
export * from "./engine/index.js";
export * from "./holdings.js";
export * from "./service.js";
