import { loadDataset as sw } from "/work/wt27/services/stormwater/dist/dataset.js";
import { determineStormwater } from "/work/wt27/services/stormwater/dist/engine/determine.js";
import { loadDataset as nwpl } from "/work/wt27/services/nwp/dist/dataset.js";
import { determine } from "/work/wt27/services/nwp/dist/engine/index.js";
import { toJson } from "@bufbuild/protobuf";
import { DeterminationSchema } from "@permits/proto/stormwater/v1/stormwater";
const s = sw(); const n = nwpl(); const T = "2026-11-24";
const d = (i) => toJson(DeterminationSchema, determineStormwater(s, i, T));
for (const i of [{state:"NM",activity:"construction",disturbedAcres:3},{state:"NM",activity:"construction",disturbedAcres:0.6},{state:"MA",activity:"construction",disturbedAcres:20,maxDisturbedAcresAtOneTime:5,dischargesToImpairedWater:false,dischargesToTier2Water:false}]) {
  const r = d(i); console.log(i.state, i.disturbedAcres, r.coverage, r.confidence, JSON.stringify((r.requirements??[]).find(q=>q.id==="stabilization.complete")?.value));
}
for (const p of [{state:"CA",district:"SPK",activity:"utility-line",aquaticResourceType:"wetland",permanentImpactAcres:0.45},{state:"CA",district:"SPK",activity:"road-crossing",aquaticResourceType:"tidal",permanentImpactAcres:0.3},{state:"CA",district:"SPK",activity:"residential-development",aquaticResourceType:"wetland",permanentImpactAcres:0.3},{state:"TX",district:"SAJ",activity:"residential-development",aquaticResourceType:"wetland",permanentImpactAcres:0.3},{state:"TX",district:"SWF",activity:"residential-development",aquaticResourceType:"stream",permanentImpactAcres:0.3, streamBedLinearFeet:5000}]) {
  const r = determine(n, p, T).determination;
  console.log(JSON.stringify({v:r.verdict,c:r.confidence,el:r.candidates.map(c=>[c.number,c.eligible,c.reasons.map(x=>x.code)]),pcn:r.pcn.required,h:r.headline},null,1));
}
