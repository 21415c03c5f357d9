// The front door of @permits/nwp: the service for a host (build), its handlers (createNwpService),
// the dataset it answers from, its engine, and the fact snapshot and holdings the data tools read.
export { build } from "./build.js";
export * from "./dataset.js";
export * from "./engine/index.js";
export * from "./holdings.js";
export * from "./service.js";
