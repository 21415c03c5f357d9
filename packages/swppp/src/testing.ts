// Real determinations from the stormwater engine, for this package's tests: a federal-permit state
// (MA), a state permit with data (TX), a state whose permit is not read (IL) and a state whose
// preparer credential is gated (GA).
import { create } from "@bufbuild/protobuf";
import { SiteInputSchema, type Determination, type CredentialResult } from "@permits/proto/stormwater/v1/stormwater";
import { determineStormwater, getCredentialGate, loadDataset } from "@permits/stormwater";
import { TODAY } from "@permits/stormwater/testing";

const dataset = loadDataset();

export type SiteFacts = Partial<{
  disturbedAcres: number;
  maxDisturbedAcresAtOneTime: number;
  dischargesToImpairedWater: boolean;
  dischargesToTier2Water: boolean;
  aridClimate: boolean;
  startDate: string;
  endDate: string;
}>;

export function answer(state: string, facts: SiteFacts = {}): Determination {
  return determineStormwater(dataset, create(SiteInputSchema, { state, activity: "construction", disturbedAcres: 3, ...facts }), TODAY);
}

export function credentialOf(state: string, acres = 3): CredentialResult {
  return getCredentialGate(dataset, state, acres);
}
