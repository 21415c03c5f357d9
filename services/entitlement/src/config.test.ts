import { describe, expect, it } from "vitest";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createEntitlementDeps, DEV_LEGACY_KEY_SECRET, loadEntitlementConfig } from "./config.js";

describe("entitlement configuration", () => {
  it("defaults: LMDB store in ./.state, documented sandbox key, dev legacy secret (with a warning), local provider", () => {
    const c = loadEntitlementConfig({});
    expect(c.store).toEqual({ backend: "lmdb", stateDir: path.resolve("./.state") });
    expect(c.sandboxKey).toBe("svc_sandbox_public");
    expect(c.legacySecret).toBe(DEV_LEGACY_KEY_SECRET);
    expect(c.warnings.join(" ")).toMatch(/LEGACY_KEY_SECRET/);
    expect(c.provider).toEqual({ name: "local" });
  });

  it("REDIS_URL selects Redis; stripe takes URL, key and timeout", () => {
    const c = loadEntitlementConfig({
      REDIS_URL: "redis://127.0.0.1:6379",
      PAYMENT_PROVIDER: "stripe",
      PAYMENT_PROVIDER_URL: "http://127.0.0.1:12111",
      PAYMENT_PROVIDER_API_KEY: "sk_test_abc",
      PAYMENT_PROVIDER_TIMEOUT_MS: "750",
      LEGACY_KEY_SECRET: "a-real-secret-of-length",
    });
    expect(c.store).toMatchObject({ backend: "redis", url: "redis://127.0.0.1:6379" });
    expect(c.provider).toEqual({ name: "stripe", url: "http://127.0.0.1:12111", apiKey: "sk_test_abc", timeoutMs: 750 });
    expect(c.warnings).toEqual([]);
  });

  it.each([
    [{ REDIS_URL: "not a url" }, "REDIS_URL"],
    [{ REDIS_URL: "http://127.0.0.1:6379" }, "REDIS_URL"],
    [{ SANDBOX_KEY: "short" }, "SANDBOX_KEY"],
    [{ SANDBOX_KEY: "svc_live_sandboxsandbox" }, "SANDBOX_KEY"],
    [{ SANDBOX_KEY: "has space in it" }, "SANDBOX_KEY"],
    [{ LEGACY_KEY_SECRET: "tooshort" }, "LEGACY_KEY_SECRET"],
    [{ PAYMENT_PROVIDER: "paypal" }, "PAYMENT_PROVIDER"],
    [{ PAYMENT_PROVIDER_TIMEOUT_MS: "2s" }, "PAYMENT_PROVIDER_TIMEOUT_MS"],
    [{ PAYMENT_PROVIDER_TIMEOUT_MS: "0" }, "PAYMENT_PROVIDER_TIMEOUT_MS"],
    [{ PAYMENT_PROVIDER: "stripe" }, "PAYMENT_PROVIDER_API_KEY"],
    [{ PAYMENT_PROVIDER: "stripe", PAYMENT_PROVIDER_API_KEY: "sk", PAYMENT_PROVIDER_URL: "nope" }, "PAYMENT_PROVIDER_URL"],
    [{ PAYMENT_PROVIDER: "stripe", PAYMENT_PROVIDER_API_KEY: "sk", PAYMENT_PROVIDER_URL: "http://h/v1" }, "PAYMENT_PROVIDER_URL"],
  ])("rejects %j naming %s", (env, variable) => {
    expect(() => loadEntitlementConfig(env as Record<string, string>)).toThrow(new RegExp(`^invalid configuration: ${variable}: `));
  });

  it("never echoes a secret value in a configuration error", () => {
    expect(() => loadEntitlementConfig({ LEGACY_KEY_SECRET: "s3cr3t!" })).toThrow(/^invalid configuration: LEGACY_KEY_SECRET: /);
    expect(() => loadEntitlementConfig({ LEGACY_KEY_SECRET: "s3cr3t!" })).not.toThrow(/s3cr3t!/);
  });

  it("builds working deps", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "entitlement-cfg-"));
    try {
      const deps = await createEntitlementDeps({ STATE_DIR: dir, LEGACY_KEY_SECRET: "a-real-secret-of-length" });
      expect(deps.store.backend).toBe("lmdb");
      expect(deps.provider.name).toBe("local");
      expect(await deps.ready()).toBe(true);
      expect(await deps.provider.lookupSubscription("sub_1")).toEqual({ found: false });
      await deps.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
