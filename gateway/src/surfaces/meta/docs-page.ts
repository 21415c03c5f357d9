// GET /docs: the interactive API reference, Scalar's renderer over the gateway's own /api/openapi.
// Everything the page loads comes from the gateway: Scalar's browser bundle ships inside
// @scalar/fastify-api-reference (the only package that carries it without ~290 MB of build
// dependencies) and that plugin serves it from memory; Scalar's CDN fonts, AI agent, MCP generator
// and developer toolbar, the parts that would call scalar.com, are off. Like /metrics the routes are
// outside the route table: not metered, no key, not in the discovery index or the OpenAPI document.
// Cost: the plugin's module (the 4.9 MB bundle inlined) takes about 0.15 s to load at start.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from "fastify";
import scalarReference from "@scalar/fastify-api-reference";
import { renderApiReference } from "@scalar/client-side-rendering";
import { staticBody } from "./static-doc.js";

export const DOCS_PATH = "/docs";
/** Where the plugin serves the bundle (`<routePrefix>/js/scalar.js`, fixed by the plugin). */
export const DOCS_SCRIPT_PATH = `${DOCS_PATH}/js/scalar.js`;

/** Scalar's configuration: the document to render, and every feature that would leave the gateway turned off. */
export const DOCS_CONFIGURATION = {
  url: "/api/openapi",
  // Otherwise the page loads Inter and JetBrains Mono from fonts.scalar.com.
  withDefaultFonts: false,
  // The agent chat and the MCP generator are services of scalar.com; the toolbar links to it.
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: "never" as const,
  telemetry: false,
  // An inline (empty) icon: without one the browser asks for /favicon.ico, which the API answers 404.
  favicon: "data:,",
  // One page lists every operation of both surfaces, not only the first tag's.
  defaultOpenAllTags: true,
};

let digest: string | undefined;

/**
 * The bundle's URL carries a digest of the plugin's module (which inlines the bundle), so the
 * script can be cached for good and a new version is a new URL. Once per process.
 */
function bundleDigest(): string {
  const file = createRequire(import.meta.url).resolve("@scalar/fastify-api-reference");
  return (digest ??= createHash("sha256").update(readFileSync(file)).digest("base64url").slice(0, 27));
}

export async function docsPage(app: FastifyInstance): Promise<void> {
  const version = bundleDigest();
  const html = renderApiReference({
    config: { _integration: "fastify", ...DOCS_CONFIGURATION },
    cdn: `${DOCS_SCRIPT_PATH}?v=${version}`,
    pageTitle: "API reference - Permit Determination API",
  });
  // Rendered once here. The plugin's own page handler re-renders per request, redirects /docs to
  // /docs/, and answers 500 when the Host header is not a valid URL host: its page route(s) get this one.
  const page = staticBody(html, "text/html; charset=utf-8");
  app.addHook("onRoute", (route: RouteOptions) => {
    if (route.url === DOCS_PATH || route.url === `${DOCS_PATH}/`) route.handler = page;
  });
  const scriptTag = `"${version}"`;
  app.addHook("onRequest", async (req: FastifyRequest, reply: FastifyReply) => {
    if (req.routeOptions.url !== DOCS_SCRIPT_PATH) return;
    reply.header("etag", scriptTag).header("cache-control", "public, max-age=31536000, immutable");
    if (req.headers["if-none-match"] === scriptTag) return reply.code(304).send();
  });
  await app.register(scalarReference, { routePrefix: DOCS_PATH, configuration: DOCS_CONFIGURATION });
}
