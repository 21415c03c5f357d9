import { loadDataset } from "/work/wt27/services/stormwater/dist/dataset.js";
import { determineStormwater } from "/work/wt27/services/stormwater/dist/engine/determine.js";
import { create } from "@bufbuild/protobuf";
import { SiteInputSchema } from "@permits/proto/stormwater/v1/stormwater";
const ds = loadDataset();
const inputs = [
    create(SiteInputSchema, { state: "MA", activity: "construction", disturbedAcres: 3.2 }),
    create(SiteInputSchema, { state: "CA", activity: "construction", disturbedAcres: 12, dischargesToImpairedWater: false }),
    create(SiteInputSchema, { state: "NM", activity: "construction", disturbedAcres: 7, maxDisturbedAcresAtOneTime: 4, dischargesToImpairedWater: false, dischargesToTier2Water: false }),
    create(SiteInputSchema, { state: "GA", activity: "construction", disturbedAcres: 2, onTribalLand: true }),
];
for (let i = 0; i < 20000; i++) determineStormwater(ds, inputs[i % 4], "2026-11-24");
for (let r=0;r<3;r++){const n = 100000; const t = performance.now();
for (let i = 0; i < n; i++) determineStormwater(ds, inputs[i % 4], "2026-11-24");
console.log(Math.round(n / ((performance.now() - t) / 1000)));}
