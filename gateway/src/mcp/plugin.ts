// MCP over Streamable HTTP at /mcp, stateless, with the official SDK. The only file that
// touches the SDK's server and transport, so a move to SDK v2 stays small.
//
// Each POST gets a new Server and transport (a stateless transport cannot be reused). The
// transport is the SDK's web-standard one (the Node one wraps it): it reads the body itself, so
// a body that is not JSON gets the SDK's own JSON-RPC parse error, and its Response is written
// through Fastify, so X-Request-Id, CORS and the request log stay as on every other route.
// /mcp is not metered: initialize, ping and tools/list spend nothing; tools/call spends what
// the REST route it forwards to spends (see forward.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import type { AppDeps } from "../deps.js";
import type { GatewayInstruments } from "../http/metrics.js";
import type { RouteSpec } from "../http/route-table.js";
import { callRoute } from "./forward.js";
import { inputSchemaOf, outputSchemas } from "./schemas.js";
import { TOOLS, type ToolDef } from "./tools.js";

export const MCP_PATH = "/mcp";

const INSTRUCTIONS =
  "Permit Determination API. Stormwater tools (document 1) tell which US stormwater permit governs a site and what it requires; " +
  "nationwide permit tools (document 2) screen a wetland or waterway impact against the 2026 Section 404 nationwide permits. " +
  "Every answer cites its source. A value marked unverified must be shown as Unverified, never as fact. " +
  "The tools never give legal advice, never delineate wetlands and never decide whether waters of the United States are present. " +
  "Send the API key as Authorization: Bearer <key> or X-API-Key on the HTTP connection; document 2 tools need one (svc_sandbox_public is the public sandbox key).";

const ANNOTATIONS = { readOnlyHint: true, idempotentHint: true, openWorldHint: false, destructiveHint: false } as const;

export interface McpOptions {
  deps: AppDeps;
  /** The REST routes of the gateway (the route table), which the tools forward to. */
  routes: RouteSpec[];
}

export async function mcpTransport(app: FastifyInstance, opts: McpOptions): Promise<void> {
  const byKey = new Map(opts.routes.map((r) => [`${r.method} ${r.url}`, r]));
  const outputs = outputSchemas(opts.routes);
  const tools = TOOLS.map((t) => {
    const route = byKey.get(t.route);
    if (!route) throw new Error(`MCP tool ${t.name}: no route ${t.route} in the route table`);
    const tool: Tool = {
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: inputSchemaOf(route) as Tool["inputSchema"],
      outputSchema: outputs.get(t.route) as Tool["outputSchema"],
      annotations: { title: t.title, ...ANNOTATIONS },
    };
    return { def: t, route, tool };
  });
  const byName = new Map(tools.map((t) => [t.def.name, t]));

  // The SDK reads the JSON-RPC body itself: hand it the text, whatever the content type says.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, (_req, body, done) => done(null, body));

  app.addHook("onRequest", async (req, reply) => {
    const refusal = dnsRebindingRefusal(req, opts.deps.config.HOST);
    if (refusal) return reply.code(403).type("application/json").send(jsonRpcError(-32000, refusal));
  });

  app.post(MCP_PATH, async (req, reply) => {
    const server = newServer(app, req, tools, byName, opts.deps.instruments);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await server.connect(transport);
      const res = await transport.handleRequest(webRequest(req));
      return await sendWebResponse(reply, res);
    } finally {
      await transport.close().catch(() => undefined);
      await server.close().catch(() => undefined);
    }
  });

  // Stateless: no server-initiated stream and no session to end, as in the SDK's stateless example.
  const notAllowed = async (_req: FastifyRequest, reply: FastifyReply) =>
    reply.code(405).header("allow", "POST").type("application/json").send(jsonRpcError(-32000, "Method not allowed."));
  app.get(MCP_PATH, notAllowed);
  app.delete(MCP_PATH, notAllowed);
}

function newServer(app: FastifyInstance, req: FastifyRequest, tools: { tool: Tool }[], byName: Map<string, { def: ToolDef; route: RouteSpec }>, instruments?: GatewayInstruments): Server {
  const server = new Server({ name: "permit-determination-api", title: "Permit Determination API", version: "1.0.0" }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.map((t) => t.tool) }));
  server.setRequestHandler(CallToolRequestSchema, async (call) => {
    const entry = byName.get(call.params.name);
    if (!entry) {
      // Counted under one label: a caller's made-up names must not become label values.
      instruments?.toolCalled("unknown", false);
      return { isError: true, content: [{ type: "text", text: `Unknown tool ${call.params.name}. Tools: ${[...byName.keys()].join(", ")}.` }] };
    }
    const result = await callRoute(app, req, entry.def, entry.route, call.params.arguments);
    instruments?.toolCalled(entry.def.name, result.isError !== true);
    return result;
  });
  return server;
}

function webRequest(req: FastifyRequest): Request {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (typeof v === "string") headers.set(k, v);
    else if (Array.isArray(v)) for (const x of v) headers.append(k, x);
  }
  const body = typeof req.body === "string" ? req.body : "";
  return new Request(new URL(req.url, "http://localhost"), { method: req.method, headers, body });
}

async function sendWebResponse(reply: FastifyReply, res: Response): Promise<FastifyReply> {
  reply.code(res.status);
  res.headers.forEach((v, k) => {
    if (k !== "content-length") reply.header(k, v);
  });
  const text = res.body ? await res.text() : "";
  return reply.send(text);
}

// The shape of the SDK's own transport-level refusals (as in its stateless example).
function jsonRpcError(code: number, message: string) {
  return { jsonrpc: "2.0", error: { code, message }, id: null };
}

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);
const LOOPBACK_BIND = /^(localhost|127\.\d+\.\d+\.\d+|::1)$/;

/**
 * DNS-rebinding guard for a gateway bound to loopback (the development default): a page on
 * another site that rebinds its name to 127.0.0.1 arrives with its own Host, and a page served
 * from elsewhere carries its Origin. A gateway bound to a public address sits behind its own
 * hostnames and proxies, serves keys in headers (no cookies), and is not checked here.
 */
function dnsRebindingRefusal(req: FastifyRequest, bindHost: string): string | undefined {
  if (!LOOPBACK_BIND.test(bindHost)) return undefined;
  const host = hostnameOf(req.headers.host);
  if (!host || !LOOPBACK_NAMES.has(host)) return "Invalid Host header: this server only answers loopback names.";
  const origin = req.headers.origin;
  if (typeof origin === "string" && origin !== "null") {
    let name: string | undefined;
    try {
      name = new URL(origin).hostname;
    } catch {
      name = undefined;
    }
    if (!name || !LOOPBACK_NAMES.has(name)) return "Invalid Origin header: this server only answers pages served from loopback.";
  }
  return undefined;
}

function hostnameOf(host: string | undefined): string | undefined {
  if (!host) return undefined;
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return undefined;
  }
}
