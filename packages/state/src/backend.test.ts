import path from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_BREAKER } from "@permits/runtime";
import { readStateBackend } from "./backend.js";

describe("readStateBackend", () => {
  it("is LMDB in ./.state by default, and in STATE_DIR (made absolute) when set", () => {
    expect(readStateBackend({})).toEqual({ backend: "lmdb", stateDir: path.resolve("./.state") });
    expect(readStateBackend({ STATE_DIR: "/var/lib/permits", REDIS_URL: "" })).toEqual({ backend: "lmdb", stateDir: "/var/lib/permits" });
  });

  it("is Redis when REDIS_URL is set, with REDIS_TIMEOUT_MS and the breaker's variables", () => {
    expect(readStateBackend({ REDIS_URL: "redis://127.0.0.1:6379", STATE_DIR: "/ignored" })).toEqual({ backend: "redis", url: "redis://127.0.0.1:6379", timeoutMs: 250, breaker: DEFAULT_BREAKER });
    expect(readStateBackend({ REDIS_URL: "rediss://cache:6380", REDIS_TIMEOUT_MS: "900", CIRCUIT_BREAKER_FAILURES: "0" })).toEqual({
      backend: "redis",
      url: "rediss://cache:6380",
      timeoutMs: 900,
      breaker: { failures: 0, probeAfterMs: 1000 },
    });
  });

  it.each([
    [{ REDIS_URL: "not a url" }, "REDIS_URL: is not a URL (expected redis://host:port)"],
    [{ REDIS_URL: "http://127.0.0.1:6379" }, "REDIS_URL: must use redis:// or rediss://"],
    [{ REDIS_URL: "redis://h", REDIS_TIMEOUT_MS: "2s" }, "REDIS_TIMEOUT_MS: must be a whole number of milliseconds"],
    [{ REDIS_URL: "redis://h", REDIS_TIMEOUT_MS: "60001" }, "REDIS_TIMEOUT_MS: must be between 1 and 60000"],
    [{ STATE_DIR: "a\0b" }, "STATE_DIR: is not a valid path"],
    [{ CIRCUIT_BREAKER_FAILURES: "-1" }, "CIRCUIT_BREAKER_FAILURES: must be a non-negative integer"],
  ])("refuses %j: %s", (env, message) => {
    expect(() => readStateBackend(env)).toThrow(`invalid configuration: ${message}`);
  });
});
