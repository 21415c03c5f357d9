// The front door of @permits/ratelimit: the service for a host (build), the plan tiers and their
// windows (the gateway prices plans from them), and the embedded store.
export { build } from "./build.js";
export * from "./policies.js";
export * from "./windows.js";
export { LmdbStore, RATELIMIT_DB_FILE, type LmdbStoreOptions } from "./lmdb-store.js";
