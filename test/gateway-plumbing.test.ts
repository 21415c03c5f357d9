// The HTTP plumbing every route shares, through the embedded deployment.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SERVICES } from "@permits/gateway/services";
import { startEmbedded, type Embedded } from "./support/embedded.js";
import { generousTiersFile } from "./support/processes.js";

const SANDBOX = "svc_sandbox_public";
let gw: Embedded;
beforeAll(async () => {
  gw = await startEmbedded({ BODY_LIMIT_BYTES: "2048", TIERS_FILE: generousTiersFile() });
});
afterAll(async () => gw?.close());

const inject = (o: Parameters<Embedded["app"]["inject"]>[0]) => gw.app.inject(o);

describe("request ids", () => {
  it("echoes a sane incoming x-request-id", async () => {
    const res = await inject({ method: "GET", url: "/api/v1", headers: { "x-request-id": "client-42.a:b_c" } });
    expect(res.headers["x-request-id"]).toBe("client-42.a:b_c");
  });
  it("replaces an unsafe or overlong one", async () => {
    for (const bad of ["has space", "x".repeat(129), "semi;colon"]) {
      const res = await inject({ method: "GET", url: "/api/v1", headers: { "x-request-id": bad } });
      expect(res.headers["x-request-id"]).toMatch(/^req_[0-9a-f]{32}$/);
    }
  });
  it("puts the id in document 1 and document 2 error bodies", async () => {
    const d1 = await inject({ method: "POST", url: "/api/v1/determine", payload: "{", headers: { "content-type": "application/json", "x-request-id": "r1" } });
    expect(d1.json()).toMatchObject({ error: { code: "invalid_json" }, request_id: "r1" });
    const d2 = await inject({ method: "POST", url: "/api/v1/determine/nwp", payload: "{", headers: { "content-type": "application/json", "x-request-id": "r2", "x-api-key": SANDBOX } });
    expect(d2.json()).toMatchObject({ error: { code: "malformed_json", requestId: "r2" } });
  });
});

describe("paths and methods", () => {
  it("answers an unknown path 404 not_found listing the endpoints", async () => {
    const res = await inject({ method: "GET", url: "/api/v1/nope" });
    expect(res.statusCode).toBe(404);
    const body = res.json();
    expect(body.error.code).toBe("not_found");
    expect(body.error.details.endpoints).toContain("POST /api/v1/determine");
    expect(body.error.details.endpoints).toContain("GET /api/v1/district/:code");
  });
  it("answers a known path with the wrong method 405 with Allow", async () => {
    const res = await inject({ method: "GET", url: "/api/v1/determine" });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe("POST");
    expect(res.headers["content-type"]).toMatch(/application\/json/);
    expect(res.json()).toMatchObject({ error: { code: "method_not_allowed", details: { allow: ["POST"] } } });
  });
  it("uses document 2's envelope for a 405 on a document 2 path", async () => {
    const res = await inject({ method: "DELETE", url: "/api/v1/district/SPK" });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe("GET, HEAD");
    expect(res.json().error).toMatchObject({ code: "method_not_allowed", knownValues: { method: ["GET", "HEAD"] } });
  });
});

describe("bodies", () => {
  it("refuses a body over BODY_LIMIT_BYTES with 413 naming the limit", async () => {
    const res = await inject({ method: "POST", url: "/api/v1/determine", payload: JSON.stringify({ state: "x".repeat(3000) }), headers: { "content-type": "application/json" } });
    expect(res.statusCode).toBe(413);
    expect(res.json().error.code).toBe("payload_too_large");
    expect(res.json().error.message).toContain("2048 bytes");
  });
  it("reads any content type as JSON, so a text/plain body that is not JSON is invalid_json", async () => {
    const res = await inject({ method: "POST", url: "/api/v1/determine", payload: "state=TX", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe("invalid_json");
  });
  it("refuses a JSON body that is not an object with invalid_request", async () => {
    for (const payload of ["[1,2]", "42", "null", '"text"']) {
      const res = await inject({ method: "POST", url: "/api/v1/determine", payload, headers: { "content-type": "application/json" } });
      expect(res.statusCode, payload).toBe(400);
      expect(res.json().error.code, payload).toBe("invalid_request");
    }
  });
});

describe("CORS", () => {
  it("exposes every rate, quota, tier and request-id header", async () => {
    const res = await inject({ method: "OPTIONS", url: "/api/v1/determine", headers: { origin: "https://app.example", "access-control-request-method": "POST" } });
    expect(res.statusCode).toBe(204);
    const simple = await inject({ method: "GET", url: "/api/v1/pricing", headers: { origin: "https://app.example" } });
    const exposed = String(simple.headers["access-control-expose-headers"]).toLowerCase();
    for (const h of ["x-request-id", "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "x-quota-limit", "x-quota-used", "x-quota-remaining", "x-service-tier", "retry-after", "ratelimit-policy", "ratelimit"]) {
      expect(exposed.split(/,\s*/)).toContain(h);
    }
  });
});

describe("static discovery documents", () => {
  for (const url of ["/api/v1", "/api/openapi", "/api/v1/pricing", "/pricing"]) {
    it(`${url} is cacheable and carries no rate-limit headers`, async () => {
      const res = await inject({ method: "GET", url });
      expect(res.statusCode).toBe(200);
      expect(res.headers["cache-control"]).toMatch(/max-age=\d+/);
      expect(res.headers.etag).toBeTruthy();
      expect(res.headers["x-ratelimit-limit"]).toBeUndefined();
      const again = await inject({ method: "GET", url, headers: { "if-none-match": String(res.headers.etag) } });
      expect(again.statusCode).toBe(304);
    });
  }
  it("the OpenAPI document is 3.1, version 1.0.0, and names every route of the index", async () => {
    const doc = (await inject({ method: "GET", url: "/api/openapi" })).json();
    const index = (await inject({ method: "GET", url: "/api/v1" })).json();
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("1.0.0");
    for (const e of index.data.endpoints) expect(doc.paths[e.path]?.[e.method.toLowerCase()], `${e.method} ${e.path}`).toBeTruthy();
    // Metered means counted against the budget: reading one's usage spends nothing.
    const usage = index.data.endpoints.find((e: { path: string }) => e.path === "/api/v1/usage");
    expect([usage.metered, doc.paths["/api/v1/usage"].get["x-metered"]]).toEqual([false, false]);
    expect(index.data.endpoints.find((e: { path: string }) => e.path === "/api/v1/determine").metered).toBe(true);
    expect(doc.paths["/api/v1/determine"].post.responses["429"]).toBeTruthy();
    expect(doc.paths["/api/v1/determine/nwp"].post.responses["422"]).toBeTruthy();
    expect(Object.keys(doc.components.responses)).toEqual(expect.arrayContaining(["invalid_json", "malformed_json", "rate_limit_exceeded", "entitlement_check_unavailable"]));
  });
  it("gives every operation a unique operationId and declares the headers and statuses the gateway answers with", async () => {
    const doc = (await inject({ method: "GET", url: "/api/openapi" })).json();
    type Op = { operationId: string; responses: Record<string, { headers?: Record<string, { $ref: string }> }>; "x-metered": boolean };
    const ops = Object.entries(doc.paths as Record<string, Record<string, Op>>).flatMap(([p, methods]) => Object.entries(methods).map(([m, op]) => ({ key: `${m.toUpperCase()} ${p}`, op })));
    const ids = ops.map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ops.find((o) => o.key === "GET /api/v1/jurisdictions/{code}")!.op.operationId).toBe("getJurisdictionsByCode");
    expect(ops.find((o) => o.key === "GET /pricing")!.op.operationId).toBe("getPricingPage");
    const headersOf = (key: string, status: string) => Object.keys(ops.find((o) => o.key === key)!.op.responses[status].headers ?? {});
    for (const { key, op } of ops) {
      for (const [status, res] of Object.entries(op.responses)) {
        expect(Object.keys(res.headers ?? {}), `${key} ${status}`).toContain("X-Request-Id");
        for (const h of Object.values(res.headers ?? {})) expect(doc.components.headers[h.$ref.split("/").pop()!], h.$ref).toBeDefined();
        if (op["x-metered"]) expect(Object.keys(res.headers ?? {}), `${key} ${status}`).toEqual(expect.arrayContaining(["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "X-Quota-Used"]));
      }
      if (op["x-metered"]) expect(Object.keys(op.responses), key).toContain("503");
    }
    const determine = ops.find((o) => o.key === "POST /api/v1/determine")!.op;
    expect(Object.keys(determine.responses)).toEqual(expect.arrayContaining(["200", "400", "409", "413", "429", "503"]));
    expect(headersOf("POST /api/v1/determine", "200")).toContain("Idempotent-Replayed");
    expect(headersOf("POST /api/v1/determine", "429")).toContain("Retry-After");
    expect(headersOf("POST /api/v1/determine/nwp", "401")).toContain("X-Service-Tier");
    expect(headersOf("GET /api/v1/pricing", "200")).toEqual(["X-Request-Id", "ETag", "Cache-Control"]);
    const page = ops.find((o) => o.key === "GET /pricing")!.op as unknown as { responses: { "200": { content: Record<string, unknown> } } };
    expect(Object.keys(page.responses["200"].content)).toEqual(["application/json", "text/html"]);
    expect(headersOf("GET /pricing", "200")).toContain("Vary");
  });
  it("pricing lists the plans of both documents, in document 1's envelope like every success", async () => {
    const res = await inject({ method: "GET", url: "/api/v1/pricing", headers: { "x-request-id": "pricing-1" } });
    const p = res.json();
    expect(Object.keys(p)).toEqual(["data", "request_id", "disclaimer", "attribution"]);
    expect(p.request_id).toBe("pricing-1");
    const ids = p.data.surfaces.map((s: { surface: string; plans: { id: string }[] }) => `${s.surface}:${s.plans.map((x) => x.id).join(",")}`);
    expect(ids).toEqual(["stormwater:anonymous,sandbox,test,pro,scale", "nwp:sandbox,pro,free"]);
    // Another request id, other bytes, the same (weak) validator.
    const again = await inject({ method: "GET", url: "/api/v1/pricing", headers: { "x-request-id": "pricing-2" } });
    expect(again.json().request_id).toBe("pricing-2");
    expect(again.headers.etag).toBe(res.headers.etag);
    expect(String(res.headers.etag)).toMatch(/^W\//);
    const index = (await inject({ method: "GET", url: "/api/v1" })).json();
    expect(index.data.pricing).toBe("/api/v1/pricing");
    expect(index.disclaimer).toBe(p.disclaimer);
  });

  it("/pricing, where document 2 sends buyers: HTML for browsers, the pricing envelope for JSON clients", async () => {
    const page = await inject({ method: "GET", url: "/pricing", headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" } });
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.headers.vary).toMatch(/Accept/);
    expect(page.headers["x-ratelimit-limit"]).toBeUndefined();
    for (const text of ["Pro", "Scale", "5,000 per day", "1,000 per month (hard ceiling, no overage)", "How to get a key", "POST /recover"]) expect(page.body).toContain(text);
    expect((await inject({ method: "GET", url: "/pricing" })).headers["content-type"]).toMatch(/^text\/html/);
    const json = await inject({ method: "GET", url: "/pricing", headers: { accept: "application/json" } });
    expect(json.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(json.json().data).toEqual((await inject({ method: "GET", url: "/api/v1/pricing" })).json().data);
  });
});

describe("health", () => {
  it("healthz says alive and readyz checks every service", async () => {
    expect((await inject({ method: "GET", url: "/healthz" })).json()).toEqual({ status: "ok" });
    const ready = await inject({ method: "GET", url: "/readyz" });
    expect(ready.statusCode).toBe(200);
    expect(ready.json().checks).toEqual(Object.fromEntries(SERVICES.map((s) => [s.name, true])));
  });
});
