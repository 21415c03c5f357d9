// Every operation of GET /api/openapi carries examples a newcomer can send as they are: the request
// (body, path and query values, written with the route) and the answer to it, which
// `npm run generate:examples` records from the engines (gateway/openapi/response-examples.json;
// `npm run check:examples` in npm test keeps it equal to a fresh run). Each example passes its
// operation's schemas; the public sandbox key is shown where a newcomer looks.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDataset as loadStormwater } from "@permits/stormwater";
import { openApiCheck, type OpenApiCheck } from "./support/openapi-check.js";
import { startEmbedded, type Embedded } from "./support/embedded.js";

type Parameter = { name: string; in: string; required: boolean; example?: string | number };
type Media = { schema: unknown; example?: unknown };
type Operation = { operationId: string; tags?: string[]; parameters?: Parameter[]; requestBody?: { description?: string; content: Record<string, Media> }; responses: Record<string, { content?: Record<string, Media> }> };
type OpenApi = { info: { description: string }; paths: Record<string, Record<string, Operation>>; components: { securitySchemes: Record<string, { description: string }> } };

const SANDBOX_KEY = "svc_sandbox_public";
const BODY_SENTENCE = "One of acres or disturbedAcres is required.";

let gw: Embedded;
let doc: OpenApi;
let check: OpenApiCheck;
beforeAll(async () => {
  // The date the examples were answered at (scripts/generate-examples.mjs): the data's own.
  gw = await startEmbedded({ EVALUATION_DATE: loadStormwater().asOf });
  doc = (await gw.app.inject({ method: "GET", url: "/api/openapi" })).json();
  check = openApiCheck(doc as never);
}, 60_000);
afterAll(async () => gw?.close());

/** Every operation with an example: all but checkout's, whose answers need a paid session or a Stripe signature (test/checkout.test.ts sends them). */
const operations = () =>
  Object.entries(doc.paths).flatMap(([template, ops]) => Object.entries(ops).filter(([, op]) => !op.tags?.includes("Checkout")).map(([method, op]) => ({ template, method: method.toUpperCase(), op })));
const success = (op: Operation) => Object.entries(op.responses).find(([status]) => status.startsWith("2"))!;
/** The operation's path with its example path values, and its example query. */
const exampleUrl = (template: string, op: Operation) => {
  const params = op.parameters ?? [];
  const url = params.filter((p) => p.in === "path").reduce((u, p) => u.replace(`{${p.name}}`, String(p.example)), template);
  const query = new URLSearchParams(params.filter((p) => p.in === "query" && p.example !== undefined).map((p) => [p.name, String(p.example)]));
  return query.size ? `${url}?${query}` : url;
};
const withoutIds = (v: unknown): unknown =>
  Array.isArray(v) ? v.map(withoutIds) : v && typeof v === "object" ? Object.fromEntries(Object.entries(v).filter(([k]) => !["request_id", "requestId", "generatedAt"].includes(k)).map(([k, x]) => [k, withoutIds(x)])) : v;

describe("examples in GET /api/openapi", () => {
  it("gives every operation but the document itself an answer, and every body and required parameter a value", () => {
    const all = operations();
    expect(all.length).toBe(21);
    const checkout = Object.values(doc.paths).flatMap((ops) => Object.values(ops)).filter((op) => op.tags?.includes("Checkout")).map((op) => op.operationId);
    expect(checkout.sort()).toEqual(["cancelLocalCheckout", "confirmLocalCheckout", "getCheckoutSuccess", "getLocalCheckout", "getLocalManage", "openCustomerPortal", "startCheckout", "stripeWebhook"]);
    expect(all.filter(({ template, op }) => template !== "/api/openapi" && success(op)[1].content?.["application/json"]?.example === undefined).map((o) => o.op.operationId)).toEqual([]);
    expect(all.filter(({ op }) => op.requestBody && op.requestBody.content["application/json"].example === undefined).map((o) => o.op.operationId)).toEqual([]);
    expect(all.flatMap(({ op }) => (op.parameters ?? []).filter((p) => p.required && p.in !== "header" && p.example === undefined).map((p) => `${op.operationId} ${p.name}`))).toEqual([]);
  });

  it("has each request example pass the operation's request schema", () => {
    const bodies = operations().filter(({ op }) => op.requestBody);
    expect(bodies.map(({ op }) => op.operationId).sort()).toEqual(["postDetermine", "postDetermineBatch", "postDetermineNwp", "postRecover"]);
    for (const { template, method, op } of bodies) expect(check.requestProblems(method, template, op.requestBody!.content["application/json"].example), op.operationId).toEqual([]);
    expect(doc.paths["/api/v1/determine"].post.requestBody!.content["application/json"].example).toEqual({ state: "NM", activity: "construction", acres: 3 });
  });

  it("has each answer pass the schema of the operation's success response", () => {
    const answered = operations().filter(({ op }) => success(op)[1].content?.["application/json"]?.example !== undefined);
    expect(answered.length).toBe(20);
    for (const { template, method, op } of answered) {
      const [status, response] = success(op);
      expect(check.problems(method, exampleUrl(template, op), Number(status), "application/json", JSON.stringify(response.content!["application/json"].example)), op.operationId).toEqual([]);
    }
  });

  it("shows what the engines answer: the determination examples sent again get the same answers", async () => {
    const determine = doc.paths["/api/v1/determine"].post;
    const recorded = success(determine)[1].content!["application/json"].example as { data: { coverage: string; permit: { id: string }; input: Record<string, unknown> } };
    expect(recorded.data.coverage).toBe("required");
    expect(recorded.data.permit.id).toBe("cgp-2022");
    expect(recorded.data.input).toMatchObject({ state: "NM", activity: "construction", disturbedAcres: 3 });
    for (const url of ["/api/v1/determine", "/api/v1/determine/nwp"]) {
      const op = doc.paths[url].post;
      const res = await gw.app.inject({ method: "POST", url, headers: { authorization: `Bearer ${SANDBOX_KEY}`, "content-type": "application/json" }, payload: JSON.stringify(op.requestBody!.content["application/json"].example) });
      expect(res.statusCode).toBe(200);
      expect(withoutIds(res.json())).toEqual(withoutIds(success(op)[1].content!["application/json"].example));
    }
  });

  it("describes the request body once, on the body and not again in its schema", () => {
    const body = doc.paths["/api/v1/determine"].post.requestBody!;
    expect(body.description).toBe(BODY_SENTENCE);
    expect(JSON.stringify(doc).split(BODY_SENTENCE).length - 1).toBe(1);
    // The alias rule (acres is read first) is said once in the body: on the acres property.
    expect(JSON.stringify(body).match(/read first/g)).toEqual(["read first"]);
    expect((body.content["application/json"].schema as { properties: Record<string, { description: string }> }).properties.acres.description).toBe("Alias of disturbedAcres, read first.");
  });
});

describe("the public sandbox key where a newcomer looks", () => {
  const shows = async (target: Embedded, key: string) => {
    const index = (await target.app.inject({ method: "GET", url: "/api/v1" })).json().data;
    expect(index.sandboxKey).toEqual({ key, send: `Authorization: Bearer ${key} or X-API-Key: ${key}`, note: expect.stringContaining("no signup") });
    const pricing = await target.app.inject({ method: "GET", url: "/pricing", headers: { accept: "text/html" } });
    expect(pricing.body).toContain(`Try it now with the public sandbox key <code>${key}</code>`);
    // The pricing data names it too, as the page does (GET /api/v1/pricing, and /pricing as JSON).
    for (const req of [{ url: "/api/v1/pricing" }, { url: "/pricing", headers: { accept: "application/json" } }]) {
      expect((await target.app.inject({ method: "GET", ...req })).json().data.sandboxKey, req.url).toEqual(index.sandboxKey);
    }
    const docs = (await target.app.inject({ method: "GET", url: "/docs" })).body;
    expect(docs).toContain(`"token": "${key}"`);
    const openapi = (await target.app.inject({ method: "GET", url: "/api/openapi" })).json() as OpenApi;
    expect(openapi.info.description).toContain(`Try it now with the public sandbox key \`${key}\``);
    expect(openapi.components.securitySchemes.bearer.description).toContain(key);
  };

  it("shows svc_sandbox_public by default on GET /api/v1, /pricing (page and data), /docs and the OpenAPI document", async () => {
    await shows(gw, SANDBOX_KEY);
  });

  it("shows the configured SANDBOX_KEY instead, the key that then works", async () => {
    const other = await startEmbedded({ SANDBOX_KEY: "try_it_sandbox_2" });
    try {
      await shows(other, "try_it_sandbox_2");
      const res = await other.app.inject({ method: "GET", url: "/api/v1/district/SPK", headers: { authorization: "Bearer try_it_sandbox_2" } });
      expect(res.statusCode).toBe(200);
      expect((await other.app.inject({ method: "GET", url: "/api/v1" })).body).not.toContain(SANDBOX_KEY);
    } finally {
      await other.close();
    }
  }, 60_000);
});
