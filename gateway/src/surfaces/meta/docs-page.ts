// GET /docs: the interactive API reference, Scalar's renderer over the gateway's own /api/openapi.
// Everything the page loads comes from the gateway: Scalar's browser bundle ships inside
// @scalar/fastify-api-reference (the only package that carries it without ~290 MB of build
// dependencies), read out of it once at start and served from memory; Scalar's CDN fonts, AI agent,
// MCP generator and developer toolbar, the parts that would call scalar.com, are off. Like /metrics
// the routes are outside the route table: not metered, no key, not in the discovery index or the
// OpenAPI document. The page is rendered once here: the plugin's own page handler re-renders per
// request, redirects /docs to /docs/, and answers 500 when the Host header is not a valid URL host.
import { createHash } from "node:crypto";
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
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

/**
 * Scalar's browser bundle, as bytes. It ships only inlined in the Fastify plugin's 5 MB module,
 * which costs a process ~40 MB of RSS to load (measured: 182 against 140 MB idle; ~25 MB stay
 * behind even when it is loaded in a worker thread). So a short-lived child process loads the
 * plugin, asks it for the bundle and writes the bytes out; the gateway never loads the module.
 * Once, at start (about 0.3 s).
 */
const execFileAsync = promisify(execFile);

async function scalarBundle(): Promise<Buffer> {
  const require = createRequire(import.meta.url);
  const modules = JSON.stringify({ fastify: pathToFileURL(require.resolve("fastify")).href, plugin: pathToFileURL(require.resolve("@scalar/fastify-api-reference")).href });
  const script = `
    const modules = ${modules};
    const fastify = (await import(modules.fastify)).default;
    const plugin = (await import(modules.plugin)).default;
    const app = fastify();
    await app.register(plugin, { routePrefix: "/docs", configuration: { url: "/api/openapi" } });
    const res = await app.inject({ url: "/docs/js/scalar.js" });
    if (res.statusCode !== 200) throw new Error("the Scalar plugin answered " + res.statusCode + " for its bundle");
    process.stdout.write(res.rawPayload);`;
  const { stdout } = await execFileAsync(process.execPath, ["--input-type=module", "-e", script], { encoding: "buffer", maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

/** Read once per process: every app built in it (tests build many) serves the same bytes. */
let bundleOnce: Promise<Buffer> | undefined;

/** "Test Request" sends the public sandbox key, filled in (a newcomer can replace it with their own). */
export function docsAuthentication(sandboxKey: string) {
  return { preferredSecurityScheme: "bearer", securitySchemes: { bearer: { token: sandboxKey }, apiKey: { value: sandboxKey } } };
}

export async function docsPage(app: FastifyInstance, opts: { sandboxKey: string }): Promise<void> {
  const bundle = await (bundleOnce ??= scalarBundle());
  // The bundle's URL carries a digest of its bytes, so it can be cached for good and a new
  // version is a new URL.
  const version = createHash("sha256").update(bundle).digest("base64url").slice(0, 27);
  const html = renderApiReference({
    config: { _integration: "fastify", ...DOCS_CONFIGURATION, authentication: docsAuthentication(opts.sandboxKey) },
    cdn: `${DOCS_SCRIPT_PATH}?v=${version}`,
    pageTitle: "API reference - Permit Determination API",
  });
  // With the router's ignoreTrailingSlash, this also answers /docs/.
  app.get(DOCS_PATH, staticBody(html, "text/html; charset=utf-8"));
  const scriptTag = `"${version}"`;
  app.get(DOCS_SCRIPT_PATH, async (req: FastifyRequest, reply: FastifyReply) => {
    reply.header("etag", scriptTag).header("cache-control", "public, max-age=31536000, immutable");
    if (req.headers["if-none-match"] === scriptTag) return reply.code(304).send();
    return reply.type("application/javascript; charset=utf-8").send(bundle);
  });
}
