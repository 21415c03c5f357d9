// The front door of @permits/sites: the service for a host (build). It imports nothing of the
// database or the handlers: those load on the service's first call (build.ts).
export { build, type BuildOptions } from "./build.js";
export { SITES_DB_FILE } from "./db/file.js";
// The app checks a photo's type before it starts a report, by this same rule.
export { imageType } from "./content-types.js";
