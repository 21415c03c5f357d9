import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "@permits/runtime";
import { isLoopback, mayCall, readInternalTokens, readSecret, SCOPES } from "./internal-auth.js";

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

it("lets a caller of any scope use gRPC reflection, which gives no scope anything more", () => {
  for (const scope of SCOPES) {
    const scopes = new Set([scope]);
    expect(["v1", "v1alpha"].map((v) => mayCall(scopes, `grpc.reflection.${v}.ServerReflection`, "ServerReflectionInfo")), scope).toEqual([true, true]);
  }
  expect(mayCall(new Set(), "grpc.reflection.v1.ServerReflection", "ServerReflectionInfo")).toBe(false);
  expect(mayCall(new Set(["engine"]), "permits.entitlement.v1.EntitlementService", "IssueKey")).toBe(false);
});
