// What callers see when a dependency fails, and where the client address comes from.
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createDirectTransport, directRoute } from "@permits/rpc";
import { StormwaterService } from "@permits/proto/stormwater/v1/stormwater";
import { KeyKind, Plan } from "@permits/proto/entitlement/v1/entitlement";
import { NwpService } from "@permits/proto/nwp/v1/nwp";
import { buildApp, readGatewayConfig } from "@permits/gateway";
import { createLogger } from "@permits/runtime";
import { startEmbedded, type Embedded } from "./support/embedded.js";
import { generousTiersFile } from "./support/processes.js";

describe("a failing service", () => {
  let gw: Embedded;
  let broken: Awaited<ReturnType<typeof buildApp>>;
  let logs = "";
  beforeAll(async () => {
    gw = await startEmbedded({ TIERS_FILE: generousTiersFile() });
    // The real entitlement and ratelimit services, with engines that fail as a crashed
    // dependency would: one throws an unexpected error, one is unreachable.
    const failing = createDirectTransport([
      directRoute(StormwaterService, {
        determine: () => { throw new TypeError("secret internal detail at engine.ts:42"); },
        listJurisdictions: () => { throw new ConnectError("connect ECONNREFUSED 10.0.0.7:7001", Code.Unavailable); },
      }),
      directRoute(NwpService, { listActivities: () => { throw new ConnectError("connect ECONNREFUSED 10.0.0.7:7002", Code.Unavailable); } }),
    ]);
    const clients = { ...gw.clients, stormwater: createClient(StormwaterService, failing), nwp: createClient(NwpService, failing) };
    const logger = createLogger("gateway", { level: "info", destination: new Writable({ write(c, _e, cb) { logs += c; cb(); } }) });
    broken = await buildApp({ clients, config: readGatewayConfig({}), logger, clock: gw.clock, ready: async () => ({}) });
  });
  afterAll(async () => {
    await broken?.close();
    await gw?.close();
  });

  it("answers 500 internal with no exception text, and logs the cause with the request id", async () => {
    const res = await broken.inject({ method: "POST", url: "/api/v1/determine", payload: JSON.stringify({ state: "NM", activity: "construction", acres: 3 }), headers: { "content-type": "application/json", "x-request-id": "boom-1" } });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: { code: "internal", message: expect.any(String) }, request_id: "boom-1" });
    expect(res.body).not.toMatch(/secret|engine\.ts|TypeError/);
    const line = logs.split("\n").find((l) => l.includes("boom-1") && l.includes("internal error"));
    expect(line).toBeDefined();
  });

  it("bills no failure: a 500 and a 503 give a paid key's quota unit back", async () => {
    const { secret } = await gw.clients.entitlement.issueKey({ kind: KeyKind.LIVE, plan: Plan.PRO, label: "outage" });
    const headers = { "x-api-key": secret, "content-type": "application/json" };
    const failed = await broken.inject({ method: "POST", url: "/api/v1/determine", payload: JSON.stringify({ state: "NM", activity: "construction", acres: 3 }), headers });
    const unavailable = await broken.inject({ method: "GET", url: "/api/v1/jurisdictions", headers });
    expect([failed.statusCode, unavailable.statusCode]).toEqual([500, 503]);
    expect([failed.headers["x-quota-used"], unavailable.headers["x-quota-used"]]).toEqual(["0", "0"]);
    const answered = await gw.app.inject({ method: "GET", url: "/api/v1/jurisdictions", headers });
    expect(answered.headers["x-quota-used"]).toBe("1");
  });

  it("answers an unreachable service 503 in document 2's vocabulary with Retry-After, hiding the address", async () => {
    const res = await broken.inject({ method: "GET", url: "/api/v1/activity", headers: { "x-api-key": "svc_sandbox_public" } });
    expect(res.statusCode).toBe(503);
    expect(res.json().error.code).toBe("internal_error");
    expect(res.headers["retry-after"]).toBeDefined();
    expect(res.body).not.toMatch(/10\.0\.0\.7|ECONNREFUSED/);
  });
});

describe("TRUST_PROXY", () => {
  let trusting: Embedded;
  let plain: Embedded;
  beforeAll(async () => {
    [trusting, plain] = await Promise.all([startEmbedded({ TRUST_PROXY: "127.0.0.1" }), startEmbedded({})]);
  });
  afterAll(async () => Promise.all([trusting?.close(), plain?.close()]));
  const call = (gw: Embedded, xff: string) =>
    gw.app.inject({ method: "POST", url: "/api/v1/determine", payload: JSON.stringify({ state: "NM", activity: "construction", acres: 3 }), headers: { "content-type": "application/json", "x-forwarded-for": xff }, remoteAddress: "127.0.0.1" });

  it("takes the client address from X-Forwarded-For set by a trusted proxy: per-IP buckets apart", async () => {
    for (let i = 0; i < 4; i++) expect((await call(trusting, "203.0.113.1")).statusCode).toBe(200);
    expect((await call(trusting, "203.0.113.1")).statusCode).toBe(429);
    expect((await call(trusting, "203.0.113.2")).statusCode).toBe(200);
  });
  it("ignores X-Forwarded-For by default: one bucket for the proxy address", async () => {
    for (let i = 0; i < 4; i++) expect((await call(plain, `198.51.100.${i}`)).statusCode).toBe(200);
    expect((await call(plain, "198.51.100.99")).statusCode).toBe(429);
  });
});
