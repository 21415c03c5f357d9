// The Connect implementation of StormwaterService over a loaded dataset. Handlers are thin:
// validation errors come from the engine as InvalidArgument with a BadRequest detail.
import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import {
  Coverage,
  DetermineResponseSchema,
  GetChangesResponseSchema,
  GetCredentialGateResponseSchema,
  GetJurisdictionResponseSchema,
  GetRequirementsResponseSchema,
  ListJurisdictionsResponseSchema,
  type StormwaterService,
} from "@permits/proto/stormwater/v1/stormwater";
import {
  determineStormwater,
  getCredentialGate,
  getJurisdiction,
  listJurisdictions,
  requirementsForSite,
} from "./engine/index.js";
import type { Dataset } from "./engine/types.js";
import { coverageOf } from "./holdings.js";
import { serviceChangelog, type Changelog } from "@permits/rules";
import { stormwaterSnapshot } from "./changelog.js";

/** `today()` is the evaluation date of every determination (see evaluationDateOf; tests pin it). */
/** `determined`: told the coverage of each determination (metrics). */
/** `changelog`: the released snapshots (data/changelog/stormwater) and this dataset as the newest version. */
export function createStormwaterService(
  dataset: Dataset,
  today: () => string,
  determined: (coverage: string) => void = () => {},
  changelog: Changelog = serviceChangelog("stormwater", stormwaterSnapshot(dataset)),
): ServiceImpl<typeof StormwaterService> {
  const coverage = coverageOf(dataset); // static: built once
  return {
    determine(req) {
      const res = create(DetermineResponseSchema, { determination: determineStormwater(dataset, req.site, today()) });
      determined(Coverage[res.determination?.coverage ?? Coverage.UNSPECIFIED].toLowerCase());
      return res;
    },
    getRequirements(req) {
      return create(GetRequirementsResponseSchema, { result: requirementsForSite(dataset, req.site, today()) });
    },
    getCoverage() {
      return coverage;
    },
    getChanges(req) {
      return create(GetChangesResponseSchema, { changes: changelog.since(req.since) });
    },
    listJurisdictions() {
      return create(ListJurisdictionsResponseSchema, { ...listJurisdictions(dataset), datasetVersion: dataset.version });
    },
    getJurisdiction(req) {
      return create(GetJurisdictionResponseSchema, { jurisdiction: getJurisdiction(dataset, req.code), datasetVersion: dataset.version });
    },
    getCredentialGate(req) {
      return create(GetCredentialGateResponseSchema, { result: getCredentialGate(dataset, req.state, req.acres), datasetVersion: dataset.version });
    },
  };
}
