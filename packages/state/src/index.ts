// The front door of @permits/state: where a service's state opens (README.md says what and why).
export * from "./backend.js";
export * from "./lmdb.js";
export * from "./redis.js";
