import { loadDataset as sw } from "/work/wt27/services/stormwater/dist/dataset.js";
import { determineStormwater } from "/work/wt27/services/stormwater/dist/engine/determine.js";
import { toJson } from "@bufbuild/protobuf";
import { DeterminationSchema } from "@permits/proto/stormwater/v1/stormwater";
const s = sw();
for (const st of ["NM","AR","OH"]) { const r = toJson(DeterminationSchema, determineStormwater(s, {state:st,activity:"construction",disturbedAcres:0.6}, "2026-11-24")); const c = r.derivation.find(x=>x.step==="coverage threshold"); console.log(st, r.coverage, r.confidence, c.citation.confidence, c.citation.basis); }
const r = toJson(DeterminationSchema, determineStormwater(s, {state:"NM",activity:"construction",disturbedAcres:3}, "2026-11-24"));
console.log(r.requirements.length, r.requirements.filter(q=>q.citation.confidence!=="CONFIDENCE_VERIFIED").length);
