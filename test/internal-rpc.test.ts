// Internal callers of the embedded deployment (`npm start`): stormwater and nwp at their protobuf
// paths on the gateway's port, over Connect and gRPC-Web, with the services' interceptor chain;
// entitlement and ratelimit are not exposed; the public routes and their metering are unchanged.
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code, ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { Coverage, StormwaterService } from "@permits/proto/stormwater/v1/stormwater";
import { NwpService, Verdict } from "@permits/proto/nwp/v1/nwp";
import { sendToken } from "@permits/rpc";
import { ROOT, startGatewayProcess, TEST_INTERNAL_TOKENS, TEST_TOKENS, type GatewayProcess } from "./support/processes.js";
import { startEmbedded, type Embedded } from "./support/embedded.js";

const run = promisify(execFile);
const SITE = { state: "TX", activity: "construction", disturbedAcres: 5 };
const PROJECT = { state: "CA", district: "SPK", activity: "residential-development", aquaticResourceType: "wetland", permanentImpactAcres: 0.3 };

let gateway: GatewayProcess;
let baseUrl: string;
beforeAll(async () => {
  // What `npm start` runs once its prestart build is done.
  gateway = await startGatewayProcess({ INTERNAL_TOKENS: TEST_INTERNAL_TOKENS });
  baseUrl = gateway.baseUrl;
}, 60_000);
afterAll(() => gateway?.stop());

describe("the engines on the embedded gateway's port", () => {
  const engineToken = [sendToken(TEST_TOKENS.engine)];
  const transports = [
    ["Connect, binary", () => createConnectTransport({ baseUrl, httpVersion: "1.1", interceptors: engineToken })],
    ["Connect, JSON", () => createConnectTransport({ baseUrl, httpVersion: "1.1", useBinaryFormat: false, interceptors: engineToken })],
    ["gRPC-Web", () => createGrpcWebTransport({ baseUrl, httpVersion: "1.1", interceptors: engineToken })],
  ] as const;

  it.each(transports)("answers the generated clients over %s", async (_name, transport) => {
    const stormwater = createClient(StormwaterService, transport());
    expect((await stormwater.determine({ site: SITE })).determination?.coverage).toBe(Coverage.REQUIRED);
    const nwp = createClient(NwpService, transport());
    const d = (await nwp.determine({ project: PROJECT })).determination!;
    expect(d.verdict).toBe(Verdict.INSUFFICIENT_DATA); // no held limit may admit a project today (issue 27)
    const err = await stormwater.determine({ site: { ...SITE, state: "ZZ" } }).catch((e) => ConnectError.from(e));
    expect(err.code).toBe(Code.InvalidArgument);
  });

  it("answers buf curl, which reads the schema from the protos", async () => {
    const buf = path.join(ROOT, "node_modules/.bin/buf");
    for (const protocol of ["connect", "grpcweb"]) {
      const { stdout } = await run(buf, ["curl", "--schema", "proto", "--protocol", protocol, "-H", `authorization: Bearer ${TEST_TOKENS.engine}`, "--data", JSON.stringify({ site: SITE }), `${baseUrl}/permits.stormwater.v1.StormwaterService/Determine`], { cwd: ROOT });
      expect(JSON.parse(stdout).determination.coverage).toBe("COVERAGE_REQUIRED");
    }
  });

  it("refuses a caller without an engine token (Unauthenticated) and one whose token lacks the scope (PermissionDenied)", async () => {
    const none = createClient(StormwaterService, createConnectTransport({ baseUrl, httpVersion: "1.1" }));
    expect(await none.determine({ site: SITE }).catch((e) => ConnectError.from(e).code)).toBe(Code.Unauthenticated);
    const admin = createClient(StormwaterService, createConnectTransport({ baseUrl, httpVersion: "1.1" }));
    const asAdmin = { headers: { authorization: `Bearer ${TEST_TOKENS.admin}` } };
    expect(await admin.determine({ site: SITE }, asAdmin).catch((e) => ConnectError.from(e).code)).toBe(Code.PermissionDenied);
  });

  it("does not expose entitlement or ratelimit", async () => {
    for (const rpc of ["permits.entitlement.v1.EntitlementService/IssueKey", "permits.entitlement.v1.EntitlementService/ListKeys", "permits.ratelimit.v1.RateLimitService/Decide"]) {
      const res = await fetch(`${baseUrl}/${rpc}`, { method: "POST", headers: { "content-type": "application/json", "connect-protocol-version": "1" }, body: "{}" });
      expect(res.status, rpc).toBe(404);
    }
  });

  it("leaves the public routes and their metering as they were: RPC calls spend no public budget", async () => {
    const remaining = async () => Number((await fetch(`${baseUrl}/api/v1/determine`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ state: "TX", activity: "construction", acres: 5 }) })).headers.get("x-ratelimit-remaining"));
    const before = await remaining();
    const stormwater = createClient(StormwaterService, createConnectTransport({ baseUrl, httpVersion: "1.1", interceptors: engineToken }));
    for (let i = 0; i < 3; i++) await stormwater.determine({ site: SITE });
    expect(await remaining()).toBe(before - 1);
    const api = (await (await fetch(`${baseUrl}/api/openapi`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(api.paths).some((p) => p.includes("permits."))).toBe(false);
  });
});

describe("the engines' interceptor chain", () => {
  let e: Embedded;
  const seen: string[] = [];
  const recorder: Interceptor = (next) => async (req) => {
    seen.push(`${req.method.name} ${req.header.get("x-caller")}`);
    return next(req);
  };
  beforeAll(async () => {
    e = await startEmbedded({ INTERNAL_TOKENS: TEST_INTERNAL_TOKENS }, { interceptors: { service: [recorder] } });
  });
  afterAll(() => e?.close());

  it("runs on calls that arrive on the gateway's port, as on the gateway's own calls", async () => {
    const res = await e.app.inject({
      method: "POST",
      url: "/permits.stormwater.v1.StormwaterService/Determine",
      headers: { "content-type": "application/json", "connect-protocol-version": "1", "x-caller": "internal", authorization: `Bearer ${TEST_TOKENS.engine}` },
      payload: JSON.stringify({ site: SITE }),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().determination.coverage).toBe("COVERAGE_REQUIRED");
    expect(seen).toEqual(["Determine internal"]);
  });
});
