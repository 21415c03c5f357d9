// Service-to-service authentication: each scope against each RPC of every service, over
// Connect (HTTP/1.1), gRPC, gRPC-Web, the lean unary path and a coalesced exchange; and the attack
// of the hardening issue (an unauthenticated IssueKey on a loopback port) refused by the real
// entitlement service.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code, ConnectError, createClient, type Interceptor, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import type { DescMethod, DescService } from "@bufbuild/protobuf";
import { createH2Transport, parseInternalTokens, requireCaller, type RunningService, scopesOf, sendToken, serve, withInterceptors } from "@permits/rpc";
import { createLogger } from "@permits/runtime";
import { Health } from "@permits/proto/grpc/health/v1/health";
import { EntitlementService } from "@permits/proto/entitlement/v1/entitlement";
import { SERVICES as MANIFESTS } from "@permits/gateway/services";
import { ensureBuilt, freePort, startDistributed, startProcess, TEST_INTERNAL_TOKENS, TEST_TOKENS, waitFor, type Proc } from "./support/processes.js";

const SERVICES: DescService[] = MANIFESTS.map((m) => m.service);
// Reached only when the call is admitted: every method answers its empty response.
const admitted = new Proxy({}, { get: (_t, k) => (k === "then" ? undefined : () => ({})) });

type Caller = "none" | "unknown" | keyof typeof TEST_TOKENS;

/**
 * What each caller may call: the callers each RPC's proto admits (permits.common.v1.callers; the
 * table of the hardening issue is pinned, literally, in packages/rpc's internal-auth.test.ts).
 */
function expected(caller: Caller, method: DescMethod): Code | "ok" {
  if (caller === "none" || caller === "unknown") return Code.Unauthenticated;
  return scopesOf(method).includes(caller) ? "ok" : Code.PermissionDenied;
}

/** Presents a token and shows the service's answer as it is (sendToken would turn a refusal into Internal). */
function tokenOf(caller: Caller): Interceptor[] {
  if (caller === "none") return [];
  const value = `Bearer ${caller === "unknown" ? "not-a-known-token-0123456789abcdef" : TEST_TOKENS[caller]}`;
  return [(next) => (req) => (req.header.set("authorization", value), next(req))];
}

let server: RunningService;
let url: string;
beforeAll(async () => {
  const tokens = parseInternalTokens(TEST_INTERNAL_TOKENS.split(","), "INTERNAL_TOKENS");
  server = await serve({ name: "t", services: SERVICES.map((service) => ({ service, impl: admitted })), host: "127.0.0.1", port: 0, logger: createLogger("t", { level: "silent" }), interceptors: [requireCaller(tokens, SERVICES)], shutdownGraceMs: 200 });
  url = `http://127.0.0.1:${server.port}`;
});
afterAll(() => server?.close());

const outcome = (p: Promise<unknown>) => p.then(() => "ok" as const, (e) => ConnectError.from(e).code);
const methods = SERVICES.flatMap((service) => service.methods.map((method) => ({ service, method })));
const callers: Caller[] = ["none", "unknown", "engine", "gateway", "admin"];
const transports: [string, () => Transport][] = [
  ["Connect JSON over HTTP/1.1", () => createConnectTransport({ baseUrl: url, httpVersion: "1.1", useBinaryFormat: false })],
  ["gRPC", () => createGrpcTransport({ baseUrl: url })],
  ["gRPC-Web", () => createGrpcWebTransport({ baseUrl: url, httpVersion: "1.1" })],
  ["the lean unary path", () => createH2Transport({ baseUrl: url })],
];

describe.each(transports)("every scope against every RPC over %s", (_name, transport) => {
  it.each(callers)("caller %s", async (caller) => {
    const t = withInterceptors(transport(), tokenOf(caller));
    // One by one, so the lean path's calls are not coalesced.
    for (const { service, method } of methods) {
      const client = createClient(service, t) as unknown as Record<string, (r: object) => Promise<unknown>>;
      expect(await outcome(client[method.localName]({})), `${caller} ${service.typeName}/${method.name}`).toBe(expected(caller, method));
    }
    expect(await outcome(createClient(Health, t).check({ service: "" }))).toBe("ok");
  });
});

describe("a coalesced exchange", () => {
  it("checks each of its calls on its own: one exchange of every RPC, from callers with different tokens", async () => {
    const base = createH2Transport({ baseUrl: url });
    const calls = callers.flatMap((caller) => {
      const t = withInterceptors(base, tokenOf(caller));
      return methods.map(({ service, method }) => {
        const client = createClient(service, t) as unknown as Record<string, (r: object) => Promise<unknown>>;
        return { label: `${caller} ${service.typeName}/${method.name}`, want: expected(caller, method), got: outcome(client[method.localName]({})) };
      });
    });
    const got = await Promise.all(calls.map((c) => c.got));
    expect(Object.fromEntries(calls.map((c, i) => [c.label, got[i]]))).toEqual(Object.fromEntries(calls.map((c) => [c.label, c.want])));
  });
});

describe("a caller whose own credential is refused", () => {
  it("sees Internal from sendToken, not the service's Unauthenticated or PermissionDenied", async () => {
    for (const token of ["not-a-known-token-0123456789abcdef", TEST_TOKENS.engine]) {
      const client = createClient(EntitlementService, withInterceptors(createH2Transport({ baseUrl: url }), [sendToken(token)]));
      const err = await client.authenticate({}).catch((e) => ConnectError.from(e));
      expect(err.code).toBe(Code.Internal);
      expect(err.rawMessage).toMatch(/refused this caller's credential .*GATEWAY_TOKEN/);
    }
  });

  it("gives the public caller a 500 internal, not a 401 about their API key", async () => {
    const d = await startDistributed({ GATEWAY_TOKEN: "a-wrong-gateway-token-0123456789" });
    try {
      const res = await fetch(`${d.baseUrl}/api/v1/determine`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ state: "TX", activity: "construction", acres: 5 }) });
      expect(res.status).toBe(500);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("internal");
    } finally {
      await d.close();
    }
  }, 60_000);
});

describe("the attack of the hardening issue, against the real entitlement service", () => {
  let proc: Proc;
  let base: string;
  let stateDir: string;
  beforeAll(async () => {
    ensureBuilt();
    const port = await freePort();
    stateDir = mkdtempSync(path.join(os.tmpdir(), "permits-state-"));
    proc = startProcess("entitlement", "services/entitlement/dist/main.js", { PORT: String(port), REDIS_URL: "", STATE_DIR: stateDir, INTERNAL_TOKENS: TEST_INTERNAL_TOKENS });
    base = `http://127.0.0.1:${port}`;
    await waitFor(async () => (await fetch(`${base}/grpc.health.v1.Health/Check`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).status === 200, 20_000, "entitlement");
  }, 30_000);
  afterAll(() => {
    proc?.child.kill("SIGTERM");
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
  });

  const post = (rpc: string, body: object, token?: string) =>
    fetch(`${base}/permits.entitlement.v1.EntitlementService/${rpc}`, { method: "POST", headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });

  it("refuses an unauthenticated IssueKey and ListKeys, and the gateway's token for them; admits the admin token", async () => {
    const issue = { kind: "KEY_KIND_LIVE", plan: "PLAN_SCALE", label: "x" };
    for (const rpc of ["IssueKey", "ListKeys"]) {
      const res = await post(rpc, rpc === "IssueKey" ? issue : {});
      expect([res.status, ((await res.json()) as { code: string }).code]).toEqual([401, "unauthenticated"]);
      const asGateway = await post(rpc, rpc === "IssueKey" ? issue : {}, TEST_TOKENS.gateway);
      expect([asGateway.status, ((await asGateway.json()) as { code: string }).code]).toEqual([403, "permission_denied"]);
    }
    const asAdmin = await post("ListKeys", {}, TEST_TOKENS.admin);
    expect(asAdmin.status).toBe(200);
    expect(proc.output()).not.toContain(TEST_TOKENS.admin);
  });
});
