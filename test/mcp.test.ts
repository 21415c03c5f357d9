// MCP over Streamable HTTP at /mcp, driven by the SDK's own Client against the gateway
// listening on loopback: the same answers, keys, tiers, metering and errors as REST.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { KeyKind, SubscriptionStatus } from "@permits/proto/entitlement/v1/entitlement";
import { PROJECT_FIELDS, PROJECT_REQUIRED, SITE_FIELDS } from "@permits/gateway";
import { startEmbedded, type Embedded } from "./support/embedded.js";
import { generousTiersFile } from "./support/processes.js";
import { readSnapshots, releaseChain } from "@permits/rules";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";


const SANDBOX = "svc_sandbox_public";
const site = { state: "NM", activity: "construction", acres: 3 };
const project = { state: "CA", district: "SPK", activity: "residential-development", aquaticResourceType: "wetland", permanentImpactAcres: 0.3 };

const TOOL_NAMES = [
  "determine_stormwater_permit",
  "get_stormwater_requirements",
  "list_stormwater_jurisdictions",
  "get_stormwater_jurisdiction",
  "get_stormwater_credential_gate",
  "determine_nationwide_permit",
  "determine_nationwide_permit_batch",
  "get_nationwide_permit",
  "list_nationwide_permits",
  "list_corps_districts",
  "get_corps_district",
  "get_state_401_certification",
  "list_nwp_activities",
  "get_my_usage",
  "get_data_coverage",
  "get_data_changes",
];
// The first released stormwater version: its changes are the data's changes since.
const FIRST_VERSION = releaseChain(readSnapshots("stormwater"), "stormwater")[0].datasetVersion;

interface Running {
  gw: Embedded;
  url: string;
  clients: Client[];
}

async function start(env: Record<string, string>): Promise<Running> {
  const gw = await startEmbedded(env);
  const address = await gw.app.listen({ port: 0, host: "127.0.0.1" });
  return { gw, url: address, clients: [] };
}

async function connect(r: Running, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "mcp-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", r.url), { requestInit: { headers } }));
  r.clients.push(client);
  return client;
}

async function stop(r: Running | undefined) {
  if (!r) return;
  for (const c of r.clients) await c.close().catch(() => undefined);
  await r.gw.close();
}

const text = (res: CallToolResult) => res.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
/** The surface's error body, carried as the JSON text block of an isError result. */
const errorBody = (res: CallToolResult) => JSON.parse((res.content[1] as { text: string }).text) as { error: Record<string, any>; request_id?: string };

/** Drops what differs between two calls by design: request ids and generation times. */
function normalize(body: unknown): unknown {
  const b = structuredClone(body) as Record<string, any>;
  delete b.request_id;
  if (b.meta) {
    delete b.meta.requestId;
    delete b.meta.generatedAt;
  }
  return b;
}

describe("MCP transport (generous tiers)", () => {
  let r: Running;
  let proKey: string;
  beforeAll(async () => {
    r = await start({ TIERS_FILE: generousTiersFile() });
    await r.gw.clients.entitlement.setLocalSubscription({ subscriptionId: "sub_mcp_pro", status: SubscriptionStatus.ACTIVE });
    proKey = (await r.gw.clients.entitlement.recoverLegacyKey({ subscriptionId: "sub_mcp_pro" })).apiKey;
  });
  afterAll(async () => stop(r));

  const rest = async (method: "GET" | "POST", path: string, key: string | null, body?: unknown) => {
    const res = await fetch(new URL(path, r.url), {
      method,
      headers: { ...(key ? { "x-api-key": key } : {}), ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
  };

  it("initializes statelessly, with the server's name, tools capability, instructions and ping", async () => {
    const client = await connect(r);
    expect(client.getServerVersion()).toMatchObject({ name: "permit-determination-api", version: "1.0.0" });
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    expect(client.getInstructions()).toMatch(/Unverified/);
    expect(await client.ping()).toEqual({});
  });

  it("lists every tool with input and output schemas and the read-only annotations", async () => {
    const client = await connect(r);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
    for (const t of tools) {
      expect(t.inputSchema.type).toBe("object");
      expect((t.inputSchema as Record<string, unknown>).additionalProperties).toBe(false);
      expect(t.outputSchema?.type).toBe("object");
      expect(JSON.stringify(t.outputSchema)).not.toContain("#/components");
      expect(t.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true, openWorldHint: false });
      expect(t.description).toBeTruthy();
    }
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const n of ["determine_stormwater_permit", "determine_nationwide_permit", "get_stormwater_jurisdiction"]) {
      expect(byName.get(n)!.description).toMatch(/Unverified/);
    }
    expect(byName.get("determine_nationwide_permit")!.description).toMatch(/waters of the United States/);
    // Issue 41: a requirement's unit, and the PCN's reason with required always a boolean, reach the tools' output schemas.
    const defs = (name: string) => (byName.get(name)!.outputSchema as { $defs: Record<string, { properties: Record<string, { type: unknown }>; required: string[] }> }).$defs;
    expect(defs("get_stormwater_requirements").Requirement.properties.unit.type).toEqual(["string", "null"]);
    expect(defs("determine_nationwide_permit").NwpPcn.properties.required.type).toBe("boolean");
    expect(defs("determine_nationwide_permit").NwpPcn.required).toEqual(expect.arrayContaining(["required", "because"]));

    // The REST field tables are the schemas: every field, the acres alias, tri-states, enums.
    const sw = byName.get("determine_stormwater_permit")!.inputSchema as { properties: Record<string, any>; required?: string[] };
    expect(Object.keys(sw.properties)).toEqual(Object.keys(SITE_FIELDS));
    expect(sw.properties.acres.type).toBe("number");
    expect(sw.properties.dischargesToImpairedWater.type).toEqual(["boolean", "null"]);
    expect(sw.properties.activity.enum).toEqual(["construction", "industrial"]);
    const req = byName.get("get_stormwater_requirements")!.inputSchema as { properties: Record<string, any> };
    expect(Object.keys(req.properties)).toEqual(Object.keys(SITE_FIELDS));
    const nwp = byName.get("determine_nationwide_permit")!.inputSchema as { properties: Record<string, any>; required: string[] };
    expect(Object.keys(nwp.properties)).toEqual(Object.keys(PROJECT_FIELDS));
    expect(nwp.required).toEqual(PROJECT_REQUIRED);
    expect(nwp.properties.aquaticResourceType.enum).toEqual(["wetland", "stream", "open-water", "tidal"]);
    expect(nwp.properties.temporaryImpactAcres.type).toEqual(["number", "null"]);
    expect(byName.get("get_stormwater_jurisdiction")!.inputSchema.required).toEqual(["code"]);
    expect(byName.get("list_corps_districts")!.inputSchema.properties).toEqual({});
  });

  // Each tool with valid input, and the REST request for the same input.
  const cases: { tool: string; args: Record<string, unknown>; method: "GET" | "POST"; path: string; body?: unknown; pro?: boolean }[] = [
    { tool: "determine_stormwater_permit", args: site, method: "POST", path: "/api/v1/determine", body: site },
    { tool: "get_stormwater_requirements", args: { state: "TX", activity: "construction", acres: 3, dischargesToImpairedWater: null }, method: "GET", path: "/api/v1/requirements?state=TX&activity=construction&acres=3" },
    { tool: "list_stormwater_jurisdictions", args: {}, method: "GET", path: "/api/v1/jurisdictions" },
    { tool: "get_stormwater_jurisdiction", args: { code: "NM" }, method: "GET", path: "/api/v1/jurisdictions/NM" },
    { tool: "get_stormwater_credential_gate", args: { code: "NM", acres: 3 }, method: "GET", path: "/api/v1/credentials/NM?acres=3" },
    { tool: "determine_nationwide_permit", args: project, method: "POST", path: "/api/v1/determine/nwp", body: project },
    { tool: "determine_nationwide_permit_batch", args: { projects: [project, { ...project, district: "XYZ" }] }, method: "POST", path: "/api/v1/determine/batch", body: { projects: [project, { ...project, district: "XYZ" }] }, pro: true },
    { tool: "get_nationwide_permit", args: { number: 29 }, method: "GET", path: "/api/v1/nwp/29" },
    { tool: "list_nationwide_permits", args: {}, method: "GET", path: "/api/v1/nwp" },
    { tool: "list_corps_districts", args: {}, method: "GET", path: "/api/v1/district" },
    { tool: "get_corps_district", args: { code: "SPK" }, method: "GET", path: "/api/v1/district/SPK" },
    { tool: "get_state_401_certification", args: { code: "CA" }, method: "GET", path: "/api/v1/state/CA/401" },
    { tool: "list_nwp_activities", args: {}, method: "GET", path: "/api/v1/activity" },
    { tool: "get_data_coverage", args: {}, method: "GET", path: "/api/v1/coverage" },
    { tool: "get_data_changes", args: { since: FIRST_VERSION }, method: "GET", path: `/api/v1/changes?since=${FIRST_VERSION}` },
  ];

  it("covers every tool in the cases below (usage has its own test)", () => {
    expect([...cases.map((c) => c.tool), "get_my_usage"].sort()).toEqual([...TOOL_NAMES].sort());
  });

  for (const c of cases) {
    it(`${c.tool}: structuredContent is the REST body for the same input`, async () => {
      const key = c.pro ? proKey : SANDBOX;
      // The pro key travels as Authorization: Bearer, the sandbox key as X-API-Key.
      const client = await connect(r, c.pro ? { authorization: `Bearer ${key}` } : { "x-api-key": key });
      await client.listTools(); // the SDK client then checks structuredContent against outputSchema
      const res = (await client.callTool({ name: c.tool, arguments: c.args })) as CallToolResult;
      expect(res.isError ?? false, text(res)).toBe(false);
      const expected = await rest(c.method, c.path, key, c.body);
      expect(expected.status).toBe(200);
      expect(normalize(res.structuredContent)).toEqual(normalize(expected.body));
      expect(res.content[0]).toMatchObject({ type: "text" });
      expect(JSON.parse((res.content[1] as { text: string }).text)).toEqual(res.structuredContent);
    });
  }

  it("summarizes a determination in text and reminds that unverified values are Unverified", async () => {
    const client = await connect(r, { "x-api-key": SANDBOX });
    const sw = (await client.callTool({ name: "determine_stormwater_permit", arguments: site })) as CallToolResult;
    // The overall confidence comes first: the answer rests on unverified requirements (issue 27).
    expect((sw.content[0] as { text: string }).text).toMatch(/^Coverage: required \(unverified: show it as Unverified, never as fact\)\. .*Permit: EPA 2022 Construction General Permit/);
    expect((sw.content[0] as { text: string }).text).toMatch(/marked unverified: show each as Unverified/);
    const nwp = (await client.callTool({ name: "determine_nationwide_permit", arguments: project })) as CallToolResult;
    expect((nwp.content[0] as { text: string }).text).toMatch(/^Verdict: (nwp-likely|nwp-with-pcn|individual-permit-likely|insufficient-data) \(unverified: show it as Unverified, never as fact\)\. /);
  });

  it("get_my_usage is the REST usage read-out for the same key", async () => {
    const client = await connect(r, { authorization: `Bearer ${SANDBOX}` });
    await client.listTools();
    const res = (await client.callTool({ name: "get_my_usage", arguments: {} })) as CallToolResult;
    expect(res.isError ?? false).toBe(false);
    const expected = await rest("GET", "/api/v1/usage", SANDBOX);
    const sc = normalize(res.structuredContent) as { data: { windows: Record<string, unknown>[] } };
    const ex = normalize(expected.body) as typeof sc;
    // Counters move with other tests sharing the sandbox bucket; the read-out itself must match.
    const shape = (b: typeof sc) => ({ ...b, data: { ...b.data, windows: b.data.windows.map(({ name, limit, windowSeconds, quota }) => ({ name, limit, windowSeconds, quota })) } });
    expect(shape(sc)).toEqual(shape(ex));
    expect(sc.data).toMatchObject({ tier: "sandbox", policy: "stormwater.sandbox" });
  });

  it("bad input is a tool result with isError and the surface's code, never a JSON-RPC error", async () => {
    const client = await connect(r, { "x-api-key": SANDBOX });
    await client.listTools();

    const unknown = (await client.callTool({ name: "determine_stormwater_permit", arguments: { ...site, colour: "green" } })) as CallToolResult;
    expect(unknown.isError).toBe(true);
    expect(unknown.structuredContent).toBeUndefined();
    expect(text(unknown)).toMatch(/^invalid_request: /);
    expect(errorBody(unknown).error).toMatchObject({ code: "invalid_request", details: { unknown_keys: ["colour"] } });
    expect(errorBody(unknown).request_id).toBeTruthy();

    const district = (await client.callTool({ name: "determine_nationwide_permit", arguments: { ...project, district: "XYZ" } })) as CallToolResult;
    expect(district.isError).toBe(true);
    expect(errorBody(district).error.code).toBe("invalid_request");
    expect(errorBody(district).error.knownValues.district).toHaveLength(38);

    const noCode = (await client.callTool({ name: "get_corps_district", arguments: {} })) as CallToolResult;
    expect(noCode.isError).toBe(true);
    expect(errorBody(noCode).error).toMatchObject({ code: "invalid_request", fields: [{ field: "code", message: "code is required" }] });

    const nope = (await client.callTool({ name: "nope", arguments: {} })) as CallToolResult;
    expect(nope.isError).toBe(true);
    expect(text(nope)).toMatch(/Unknown tool nope/);
  });

  // Bad input through MCP and through REST: the same error body, whatever the engines decide.
  const badCases: { tool: string; args: Record<string, unknown>; method: "GET" | "POST"; path: string; body?: unknown }[] = [
    { tool: "determine_stormwater_permit", args: { ...site, colour: "green" }, method: "POST", path: "/api/v1/determine", body: { ...site, colour: "green" } },
    { tool: "determine_stormwater_permit", args: { ...site, acres: "3" }, method: "POST", path: "/api/v1/determine", body: { ...site, acres: "3" } },
    { tool: "get_stormwater_requirements", args: { ...site, acres: "lots" }, method: "GET", path: "/api/v1/requirements?state=NM&activity=construction&acres=lots" },
    { tool: "get_stormwater_jurisdiction", args: { code: "XX" }, method: "GET", path: "/api/v1/jurisdictions/XX" },
    { tool: "get_stormwater_credential_gate", args: { code: "NM", acres: -1, extra: true }, method: "GET", path: "/api/v1/credentials/NM?acres=-1&extra=true" },
    { tool: "determine_nationwide_permit", args: { ...project, district: "XYZ" }, method: "POST", path: "/api/v1/determine/nwp", body: { ...project, district: "XYZ" } },
    { tool: "determine_nationwide_permit", args: { ...project, wetlandColour: "green" }, method: "POST", path: "/api/v1/determine/nwp", body: { ...project, wetlandColour: "green" } },
    { tool: "get_nationwide_permit", args: { number: 26 }, method: "GET", path: "/api/v1/nwp/26" },
    { tool: "get_corps_district", args: { code: "XYZ" }, method: "GET", path: "/api/v1/district/XYZ" },
    { tool: "list_corps_districts", args: { page: 2 }, method: "GET", path: "/api/v1/district?page=2" },
  ];
  for (const c of badCases) {
    it(`${c.tool} ${JSON.stringify(c.args).slice(0, 60)}: the REST error, as a tool error`, async () => {
      const client = await connect(r, { "x-api-key": SANDBOX });
      const res = (await client.callTool({ name: c.tool, arguments: c.args })) as CallToolResult;
      expect(res.isError).toBe(true);
      const expected = await rest(c.method, c.path, SANDBOX, c.body);
      expect(expected.status).toBeGreaterThanOrEqual(400);
      const strip = (b: Record<string, any>) => {
        const x = structuredClone(b);
        delete x.request_id;
        delete x.error.requestId;
        return x;
      };
      expect(strip(errorBody(res))).toEqual(strip(expected.body));
      expect(text(res)).toMatch(new RegExp(`^${expected.body.error.code}: `));
    });
  }

  it("keys are the REST keys: none on document 2 is missing_api_key, a bad one invalid_api_key / unauthorized", async () => {
    const anonymous = await connect(r);
    const missing = (await anonymous.callTool({ name: "list_corps_districts", arguments: {} })) as CallToolResult;
    expect(missing.isError).toBe(true);
    expect(errorBody(missing).error.code).toBe("missing_api_key");
    // Document 1 serves anonymous callers.
    const free = (await anonymous.callTool({ name: "get_stormwater_jurisdiction", arguments: { code: "NM" } })) as CallToolResult;
    expect(free.isError ?? false).toBe(false);

    const bad = await connect(r, { authorization: "Bearer svc_live_forged" });
    expect(errorBody((await bad.callTool({ name: "list_corps_districts", arguments: {} })) as CallToolResult).error.code).toBe("invalid_api_key");
    expect(errorBody((await bad.callTool({ name: "list_stormwater_jurisdictions", arguments: {} })) as CallToolResult).error.code).toBe("unauthorized");
  });

  it("the Pro-only batch refuses a sandbox key with upgrade_required", async () => {
    const client = await connect(r, { "x-api-key": SANDBOX });
    const res = (await client.callTool({ name: "determine_nationwide_permit_batch", arguments: { projects: [project] } })) as CallToolResult;
    expect(res.isError).toBe(true);
    expect(text(res)).toMatch(/^upgrade_required: /);
    expect(errorBody(res).error.code).toBe("upgrade_required");
  });

  it("speaks the SDK's stateless transport: GET and DELETE 405, bad JSON -32700, X-Request-Id kept", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(new URL("/mcp", r.url), { method, headers: { accept: "text/event-stream" } });
      expect(res.status).toBe(405);
      expect(await res.json()).toEqual({ jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed." }, id: null });
    }
    const bad = await fetch(new URL("/mcp", r.url), { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{nope" });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.code).toBe(-32700);
    expect(bad.headers.get("x-request-id")).toBeTruthy();

    const list = await fetch(new URL("/mcp", r.url), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "x-request-id": "mcp-raw-1" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(list.status).toBe(200);
    expect(list.headers.get("content-type")).toMatch(/application\/json/);
    expect(list.headers.get("x-request-id")).toBe("mcp-raw-1");
    expect(list.headers.get("mcp-session-id")).toBeNull();
    expect((await list.json()).result.tools).toHaveLength(TOOL_NAMES.length);
  });

  it("refuses a foreign Host or Origin while bound to loopback (DNS rebinding)", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const rebound = await r.gw.app.inject({ method: "POST", url: "/mcp", payload: body, headers: { ...headers, host: "attacker.example:8080" } });
    expect(rebound.statusCode).toBe(403);
    const foreign = await r.gw.app.inject({ method: "POST", url: "/mcp", payload: body, headers: { ...headers, host: "127.0.0.1:8080", origin: "https://attacker.example" } });
    expect(foreign.statusCode).toBe(403);
    const local = await r.gw.app.inject({ method: "POST", url: "/mcp", payload: body, headers: { ...headers, host: "localhost:8080", origin: "http://localhost:6274" } });
    expect(local.statusCode).toBe(200);
    expect(local.json()).toMatchObject({ jsonrpc: "2.0", id: 1, result: {} });
  });
});

describe("MCP metering (the real tiers)", () => {
  let r: Running;
  let testKey: string;
  beforeAll(async () => {
    r = await start({});
    testKey = (await r.gw.clients.entitlement.issueKey({ kind: KeyKind.TEST, label: "mcp metering" })).secret;
  });
  afterAll(async () => stop(r));

  const usage = async (key: string) => {
    const res = await fetch(new URL("/api/v1/usage", r.url), { headers: { authorization: `Bearer ${key}` } });
    const body = (await res.json()) as { data: { policy: string; windows: { name: string; used: number; limit: number }[] } };
    return body.data;
  };

  it("initialize, ping and ten tools/list spend nothing; each tools/call spends one unit", async () => {
    const before = await usage(testKey);
    expect(before.policy).toBe("stormwater.test");
    expect(before.windows.find((w) => w.name === "minute")).toMatchObject({ used: 0, limit: 10 });

    const client = await connect(r, { authorization: `Bearer ${testKey}` });
    await client.ping();
    for (let i = 0; i < 10; i++) expect((await client.listTools()).tools).toHaveLength(TOOL_NAMES.length);
    expect((await usage(testKey)).windows.map((w) => w.used)).toEqual([0, 0]);
    // The usage tool itself reads without spending, as its REST route does.
    const read = (await client.callTool({ name: "get_my_usage", arguments: {} })) as CallToolResult;
    expect((read.structuredContent as typeof read & { data: { windows: { used: number }[] } }).data.windows.map((w) => w.used)).toEqual([0, 0]);

    const call = (await client.callTool({ name: "list_stormwater_jurisdictions", arguments: {} })) as CallToolResult;
    expect(call.isError ?? false).toBe(false);
    expect((await usage(testKey)).windows.map((w) => w.used)).toEqual([1, 1]);

    // A REST call from the same key sees the budget the tool call spent.
    const res = await fetch(new URL("/api/v1/jurisdictions/NM", r.url), { headers: { "x-api-key": testKey } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ratelimit-remaining")).toBe("8");
  });

  it("a call refused for rate is the tool error rate_limited with when to retry", async () => {
    // No key: document 1's anonymous tier, 4 a minute per calling IP.
    const client = await connect(r);
    const results: CallToolResult[] = [];
    for (let i = 0; i < 5; i++) results.push((await client.callTool({ name: "get_stormwater_jurisdiction", arguments: { code: "NM" } })) as CallToolResult);
    expect(results.slice(0, 4).every((x) => !x.isError)).toBe(true);
    const refused = results[4];
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/^rate_limited: .*Retry after \d+ seconds/);
    const body = errorBody(refused);
    expect(body.error.code).toBe("rate_limited");
    expect(body.error.details.retry_after_seconds).toBeGreaterThan(0);

    // Listing still works when the budget is gone: it never spends.
    expect((await client.listTools()).tools).toHaveLength(TOOL_NAMES.length);
  });

  it("document 2's sandbox refusal is rate_limit_exceeded", async () => {
    const client = await connect(r, { "x-api-key": SANDBOX });
    let last: CallToolResult | undefined;
    for (let i = 0; i < 26; i++) last = (await client.callTool({ name: "list_nwp_activities", arguments: {} })) as CallToolResult;
    expect(last!.isError).toBe(true);
    expect(errorBody(last!).error.code).toBe("rate_limit_exceeded");
    expect(text(last!)).toMatch(/Retry after \d+ seconds/);
  });
});
