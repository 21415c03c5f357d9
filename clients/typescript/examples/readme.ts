import { createPermitsClient } from "@permits/client";
const api = createPermitsClient({ baseUrl: "http://127.0.0.1:8080", apiKey: "svc_sandbox_public" }); // a document 2 live key: { legacyKey: "nwp_…" }
const site = await api.POST("/api/v1/determine", { body: { state: "NM", activity: "construction", acres: 3 } });
const wetland = await api.POST("/api/v1/determine/nwp", { body: { state: "CA", district: "SPK", activity: "residential-development", aquaticResourceType: "wetland", permanentImpactAcres: 0.3 } });
console.log(site.data?.data.coverage ?? site.error?.error.code, wetland.data?.data.verdict ?? wetland.error?.error.requestId);
