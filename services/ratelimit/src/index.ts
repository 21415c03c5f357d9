// The front door of @permits/ratelimit: the plan tiers and their windows (the gateway prices plans
// from them), and the embedded store. Hosts build the service through its manifest (./manifest).
export * from "./policies.js";
export * from "./windows.js";
export { LmdbStore, RATELIMIT_DB_FILE, type LmdbStoreOptions } from "./lmdb-store.js";
