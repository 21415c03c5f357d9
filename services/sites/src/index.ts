// The front door of @permits/sites: what the sites database's file is called. Hosts build the
// service through its manifest (./manifest), which loads nothing of the database before the first call.
export { SITES_DB_FILE } from "./db/file.js";
// The app checks a photo's type before it starts a report, by this same rule.
export { imageType } from "./content-types.js";
