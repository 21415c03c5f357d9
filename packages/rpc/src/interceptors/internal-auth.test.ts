import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "@permits/runtime";
import type { DescService } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { EntitlementService } from "@permits/proto/entitlement/v1/entitlement";
import { ServerReflection } from "@permits/proto/grpc/reflection/v1/reflection";
import { ServerReflection as ServerReflectionV1alpha } from "@permits/proto/grpc/reflection/v1alpha/reflection";
import { NwpService } from "@permits/proto/nwp/v1/nwp";
import { RateLimitService } from "@permits/proto/ratelimit/v1/ratelimit";
import { StormwaterService } from "@permits/proto/stormwater/v1/stormwater";
import { isLoopback, parseInternalTokens, readInternalTokens, readSecret, requireCaller, scopesOf } from "./internal-auth.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "permits-tokens-"));
const T1 = "a".repeat(24);
const T2 = "b".repeat(30);

describe("INTERNAL_TOKENS", () => {
  it("reads the comma-separated list and the file form, with the same entries", () => {
    const inline = readInternalTokens({ INTERNAL_TOKENS: `gw:gateway:${T1}, ops:admin+gateway:${T2}` });
    const file = path.join(dir, "tokens");
    writeFileSync(file, `# service credentials\ngw:gateway:${T1}\n\nops:admin+gateway:${T2}\n`);
    const fromFile = readInternalTokens({ INTERNAL_TOKENS_FILE: file });
    for (const list of [inline, fromFile]) {
      expect(list.map((t) => [t.name, [...t.scopes]])).toEqual([["gw", ["gateway"]], ["ops", ["admin", "gateway"]]]);
      // Held as digests only.
      expect(JSON.stringify(list.map((t) => [t.name, t.digest.toString("hex")]))).not.toContain(T1);
    }
    expect(readInternalTokens({})).toEqual([]);
  });

  it("refuses both forms at once, a repeated name and an unreadable file, naming the variable", () => {
    expect(() => readInternalTokens({ INTERNAL_TOKENS: `gw:gateway:${T1}`, INTERNAL_TOKENS_FILE: "/x" })).toThrow(/INTERNAL_TOKENS and INTERNAL_TOKENS_FILE are both set/);
    expect(() => readInternalTokens({ INTERNAL_TOKENS: `gw:gateway:${T1},gw:admin:${T2}` })).toThrow(/the name gw is used twice/);
    expect(() => readInternalTokens({ INTERNAL_TOKENS_FILE: "/nonexistent/tokens" })).toThrow(ConfigError);
  });
});

describe("GATEWAY_TOKEN", () => {
  it("comes from the variable or from the file its _FILE names, never both", () => {
    const file = path.join(dir, "gw");
    writeFileSync(file, `${T1}\n`);
    expect(readSecret({ GATEWAY_TOKEN: T2 }, "GATEWAY_TOKEN")).toBe(T2);
    expect(readSecret({ GATEWAY_TOKEN_FILE: file }, "GATEWAY_TOKEN")).toBe(T1);
    expect(readSecret({}, "GATEWAY_TOKEN")).toBeUndefined();
    expect(() => readSecret({ GATEWAY_TOKEN: T2, GATEWAY_TOKEN_FILE: file }, "GATEWAY_TOKEN")).toThrow(/both set/);
  });
});

it("tells loopback listen addresses from reachable ones", () => {
  expect(["127.0.0.1", "127.1.2.3", "::1", "localhost"].map(isLoopback)).toEqual([true, true, true, true]);
  expect(["0.0.0.0", "::", "10.0.0.5", "192.168.1.2"].map(isLoopback)).toEqual([false, false, false, false]);
});

it("reads who may call each RPC from its proto: the scope table of the hardening issue, every method of the four services", () => {
  const table = Object.fromEntries([StormwaterService, NwpService, EntitlementService, RateLimitService].flatMap((s) => s.methods.map((m) => [`${s.name}/${m.name}`, scopesOf(m).join("+")])));
  const each = (service: string, methods: string[], scopes: string) => methods.map((m) => [`${service}/${m}`, scopes]);
  expect(table).toEqual(Object.fromEntries([
    ...each("StormwaterService", ["Determine", "GetRequirements", "ListJurisdictions", "GetJurisdiction", "GetCredentialGate", "GetCoverage", "GetChanges"], "engine+gateway"),
    ...each("NwpService", ["Determine", "DetermineBatch", "ListPermits", "GetPermit", "ListDistricts", "GetDistrict", "GetStateCertification", "ListActivities", "GetCoverage", "GetChanges"], "engine+gateway"),
    ...each("EntitlementService", ["Authenticate", "RecoverLegacyKey", "GetCheckoutPlans", "StartCheckout", "CompleteLocalCheckout", "CancelLocalCheckout", "GetLocalCheckout", "RevealCheckout", "HandleProviderEvent", "CreatePortalSession", "ResolveAccount"], "gateway"),
    ...each("EntitlementService", ["IssueKey", "ListKeys", "RevokeKey", "SetLocalSubscription"], "admin"),
    ...each("RateLimitService", ["Decide", "Refund", "GetUsage", "BeginIdempotent", "CompleteIdempotent", "ReleaseIdempotent"], "gateway"),
  ]));
});

describe("requireCaller", () => {
  const tokens = parseInternalTokens([`e:engine:${T1}`, `g:gateway:${"c".repeat(24)}`, `a:admin:${T2}`], "INTERNAL_TOKENS");
  const outcome = async (service: DescService, method: string, token: string | undefined) => {
    const m = service.methods.find((x) => x.name === method)!;
    const call = requireCaller(tokens, [StormwaterService, EntitlementService])(async () => ({ stream: false }) as never);
    const header = new Headers(token === undefined ? {} : { authorization: `Bearer ${token}` });
    return call({ service, method: m, header } as never).then(() => "ok", (e) => Code[ConnectError.from(e).code]);
  };

  it("admits a scope the method's proto names, refuses others, and what it was not given to guard", async () => {
    expect(await outcome(StormwaterService, "Determine", T1)).toBe("ok");
    expect(await outcome(EntitlementService, "IssueKey", T2)).toBe("ok");
    expect(await outcome(EntitlementService, "IssueKey", T1)).toBe("PermissionDenied");
    expect(await outcome(EntitlementService, "Authenticate", T2)).toBe("PermissionDenied");
    expect(await outcome(EntitlementService, "Authenticate", undefined)).toBe("Unauthenticated");
    // NwpService admits engine callers, but this guard was not given it.
    expect(await outcome(NwpService, "Determine", T1)).toBe("PermissionDenied");
  });

  it("lets a caller of any scope use gRPC reflection, which gives no scope anything more", async () => {
    for (const token of [T1, T2]) for (const r of [ServerReflection, ServerReflectionV1alpha]) expect(await outcome(r, "ServerReflectionInfo", token)).toBe("ok");
    expect(await outcome(ServerReflection, "ServerReflectionInfo", undefined)).toBe("Unauthenticated");
  });
});
