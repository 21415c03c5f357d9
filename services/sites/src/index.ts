// The front door of @permits/sites: what the sites database's file is called. Hosts build the
// service through its manifest (./manifest), which loads nothing of the database before the first call.
export { SITES_DB_FILE } from "./db/file.js";
