// gRPC server reflection on real service processes, through the client internal callers use:
// `buf curl` lists each service's methods over grpc.reflection.v1 and v1alpha and calls a method
// with nothing but what reflection gave it (no --schema); without a credential it is refused.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, freePort, ROOT, startProcess, TEST_INTERNAL_TOKENS, TEST_TOKENS, waitFor, type Proc } from "./support/processes.js";

const run = promisify(execFile);
const BUF = path.join(ROOT, "node_modules/.bin/buf");
const GRPC = ["curl", "--protocol", "grpc", "--http2-prior-knowledge"];
const bearer = (token: string) => `authorization: Bearer ${token}`;

/** What every service serves besides its own methods. */
const COMMON = ["grpc.health.v1.Health/Check", "grpc.health.v1.Health/Watch", "grpc.reflection.v1.ServerReflection/ServerReflectionInfo", "grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"];
const METHODS = {
  stormwater: [
    ...COMMON,
    "permits.stormwater.v1.StormwaterService/Determine",
    "permits.stormwater.v1.StormwaterService/GetChanges",
    "permits.stormwater.v1.StormwaterService/GetCoverage",
    "permits.stormwater.v1.StormwaterService/GetCredentialGate",
    "permits.stormwater.v1.StormwaterService/GetJurisdiction",
    "permits.stormwater.v1.StormwaterService/GetRequirements",
    "permits.stormwater.v1.StormwaterService/ListJurisdictions",
  ],
  entitlement: [
    ...COMMON,
    "permits.entitlement.v1.EntitlementService/Authenticate",
    "permits.entitlement.v1.EntitlementService/CancelLocalCheckout",
    "permits.entitlement.v1.EntitlementService/CompleteLocalCheckout",
    "permits.entitlement.v1.EntitlementService/CreatePortalSession",
    "permits.entitlement.v1.EntitlementService/GetCheckoutPlans",
    "permits.entitlement.v1.EntitlementService/GetLocalCheckout",
    "permits.entitlement.v1.EntitlementService/HandleProviderEvent",
    "permits.entitlement.v1.EntitlementService/IssueKey",
    "permits.entitlement.v1.EntitlementService/ListKeys",
    "permits.entitlement.v1.EntitlementService/RecoverLegacyKey",
    "permits.entitlement.v1.EntitlementService/ResolveAccount",
    "permits.entitlement.v1.EntitlementService/RevealCheckout",
    "permits.entitlement.v1.EntitlementService/RevokeKey",
    "permits.entitlement.v1.EntitlementService/SetLocalSubscription",
    "permits.entitlement.v1.EntitlementService/StartCheckout",
  ],
};

const procs: Proc[] = [];
const urls: Record<keyof typeof METHODS, string> = { stormwater: "", entitlement: "" };
let stateDir: string;
beforeAll(async () => {
  ensureBuilt();
  stateDir = mkdtempSync(path.join(os.tmpdir(), "permits-state-"));
  await Promise.all(
    (Object.keys(urls) as (keyof typeof METHODS)[]).map(async (name) => {
      const port = await freePort();
      procs.push(startProcess(name, `services/${name}/dist/main.js`, { PORT: String(port), REDIS_URL: "", STATE_DIR: stateDir, INTERNAL_TOKENS: TEST_INTERNAL_TOKENS }));
      urls[name] = `http://127.0.0.1:${port}`;
      await waitFor(async () => (await fetch(`${urls[name]}/grpc.health.v1.Health/Check`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).status === 200, 20_000, name);
    }),
  );
}, 60_000);
afterAll(() => {
  for (const p of procs) p.child.kill("SIGTERM");
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
});

const lines = (text: string) => text.trim().split("\n");

describe.each(["grpc-v1", "grpc-v1alpha"])("buf curl --list-methods over %s", (protocol) => {
  it.each([
    ["stormwater", TEST_TOKENS.engine],
    ["entitlement", TEST_TOKENS.admin],
  ] as const)("lists exactly the methods %s serves (a token of any scope)", async (name, token) => {
    const { stdout } = await run(BUF, [...GRPC, "--reflect-protocol", protocol, "--reflect-header", bearer(token), "--list-methods", urls[name]]);
    expect(lines(stdout)).toEqual(METHODS[name]);
  });
});

describe("a call whose schema comes from reflection alone", () => {
  it("reaches stormwater with the fields of its answer (imports such as google.protobuf.Struct resolved)", async () => {
    const { stdout } = await run(BUF, [...GRPC, "-H", bearer(TEST_TOKENS.engine), "--reflect-header", "*", "-d", JSON.stringify({ code: "TX" }), `${urls.stormwater}/permits.stormwater.v1.StormwaterService/GetJurisdiction`]);
    const j = JSON.parse(stdout).jurisdiction;
    expect([j.code, j.name, j.npdesAuthorized, j.permitNumber]).toEqual(["TX", "Texas", true, "TXR150000"]);
    const det = await run(BUF, [...GRPC, "--reflect-protocol", "grpc-v1alpha", "-H", bearer(TEST_TOKENS.engine), "--reflect-header", "*", "-d", JSON.stringify({ site: { state: "TX", activity: "construction", disturbedAcres: 5 } }), `${urls.stormwater}/permits.stormwater.v1.StormwaterService/Determine`]);
    expect(JSON.parse(det.stdout).determination.coverage).toBe("COVERAGE_REQUIRED");
  });

  it("reaches entitlement: the sandbox key authenticates", async () => {
    const body = { surface: "SURFACE_STORMWATER", apiKey: "svc_sandbox_public", clientIp: "127.0.0.1" };
    const { stdout } = await run(BUF, [...GRPC, "-H", bearer(TEST_TOKENS.gateway), "--reflect-header", "*", "-d", JSON.stringify(body), `${urls.entitlement}/permits.entitlement.v1.EntitlementService/Authenticate`]);
    const p = JSON.parse(stdout).principal;
    expect([p.surface, p.tier]).toEqual(["SURFACE_STORMWATER", "TIER_SANDBOX"]);
  });
});

describe("without a credential", () => {
  it.each(["grpc-v1", "grpc-v1alpha"])("reflection is refused with Unauthenticated (%s)", async (protocol) => {
    for (const header of [[], ["--reflect-header", bearer("not-a-known-token-0123456789abcdef")]]) {
      const err = (await run(BUF, [...GRPC, "-v", "--reflect-protocol", protocol, ...header, "--list-methods", urls.stormwater]).catch((e) => e)) as { code?: number; stdout: string; stderr: string };
      expect(err.code).toBe(1);
      expect(err.stdout).toBe("");
      // buf prints its own advice about BSR logins for any Unauthenticated; the status is ours.
      expect(err.stderr).toContain("Grpc-Status: 16");
      expect(decodeURIComponent(err.stderr)).toContain("a valid caller credential is required");
    }
  });
});
