export { determineStormwater, requirementsForSite, requirementsFromDetermination } from "./determine.js";
export { listJurisdictions, getJurisdiction, getCredentialGate, type JurisdictionList } from "./jurisdictions.js";
export { prepareDataset, CGP_ID, MSGP_ID } from "./prepare.js";
export { DOCUMENT_STATUS } from "./credential.js";
export * from "./notices.js";
export type { Dataset } from "./types.js";
export type * from "./raw.js";
