// Static discovery documents: the endpoint index, OpenAPI and pricing (data and page). Unmetered,
// cacheable; the index and pricing data in the stormwater surface's envelope, OpenAPI bare.
import type { AppDeps } from "../../deps.js";
import { isMetered, spends, type RouteSpec } from "../../http/route-table.js";
import { buildOpenApi } from "./openapi.js";
import { pricingData, sandboxKeyInfo } from "./pricing.js";
import { pricingPage } from "./pricing-page.js";
import { staticEnvelope, staticJson } from "./static-doc.js";
import { DOCS_PATH } from "./docs-page.js";
import type { CheckoutCatalogue } from "../checkout/catalogue.js";

export function metaRoutes(deps: AppDeps, apiRoutes: RouteSpec[], checkout?: CheckoutCatalogue): RouteSpec[] {
  const sandboxKey = deps.config.SANDBOX_KEY;
  const meta = (url: string, summary: string, handler: RouteSpec["handler"]): RouteSpec => ({
    method: "GET",
    url,
    surface: "stormwater",
    doc: { summary, success: { status: 200, description: summary, schema: { type: "object" } }, errors: [], auth: "none" },
    handler,
  });
  const index = meta("/api/v1", "Discovery index of every endpoint, stormwater and NWP", async () => undefined);
  const openapi = meta("/api/openapi", "OpenAPI 3.1 description of every endpoint, stormwater and NWP", async () => undefined);
  const pricing = meta("/api/v1/pricing", "The plans for the stormwater and NWP endpoints as data", staticEnvelope(pricingData(sandboxKey)));
  pricing.doc.success.description = "The plans of both surfaces (`surfaces[].plans[]`: limits, bucket, whether billable and purchasable) and the public sandbox key by value (`sandboxKey`: `key`, how to `send` it, a `note`), as the /pricing page shows it.";
  const page = meta("/pricing", "The pricing page: HTML, or the pricing data with Accept: application/json", pricingPage(sandboxKey, checkout));
  page.doc.operationId = "getPricingPage";
  page.doc.html = true;
  const all = [...apiRoutes, index, openapi, pricing, page];
  index.handler = staticEnvelope({
    name: "Permit Determination API",
    version: "1.0.0",
    openapi: "/api/openapi",
    // The reference page rendered from it (docs-page.ts): a page, not an endpoint, so not listed below.
    docs: DOCS_PATH,
    pricing: "/api/v1/pricing",
    // What a newcomer needs to send a first request.
    sandboxKey: sandboxKeyInfo(sandboxKey),
    mcp: { url: "/mcp", transport: "streamable-http", note: "The same capabilities as tools for AI agents, under the same keys and tiers." },
    endpoints: all.map((r) => ({
      method: r.method,
      path: r.url.replace(/:(\w+)/g, "{$1}"),
      surface: r.surface === "nwp" ? "nwp" : isMetered(r) ? "stormwater" : "discovery",
      summary: r.doc.summary,
      key: r.doc.auth,
      // Metered means it counts against the caller's budget: the usage read-out is checked but spends nothing.
      metered: spends(r),
    })),
  });
  openapi.handler = staticJson(buildOpenApi(all, sandboxKey));
  return [index, openapi, pricing, page];
}
