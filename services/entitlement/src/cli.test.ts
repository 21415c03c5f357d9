// CLI round trip in-process: issue with the CLI, authenticate through a separately opened service
// (as the running server would), revoke with the CLI, authenticate again. Both store backends.
import { afterAll, describe, expect, inject, it } from "vitest";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Code, ConnectError, createClient as createRpcClient, createRouterTransport } from "@connectrpc/connect";
import { createClient } from "redis";
import { Surface } from "@permits/proto/common/v1/common";
import { EntitlementService, Tier } from "@permits/proto/entitlement/v1/entitlement";
import { runCli } from "./cli.js";
import { createEntitlementDeps } from "./config.js";
import { deriveLegacyKey, randomBase62 } from "./keys.js";
import { createEntitlementService } from "./service.js";

const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const LEGACY_SECRET = "cli-test-legacy-secret-0123456789";

async function cli(env: Record<string, string>, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (t) => out.push(t), err: (t) => err.push(t), env });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups) await c();
});

async function fileEnv(): Promise<Record<string, string>> {
  const dir = await mkdtemp(path.join(tmpdir(), "entitlement-cli-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return { STATE_DIR: dir, LEGACY_KEY_SECRET: LEGACY_SECRET };
}

async function redisEnv(): Promise<Record<string, string>> {
  const prefix = `test:entitlement-cli:${randomBase62(10)}:`;
  cleanups.push(async () => {
    const c = createClient({ url: REDIS_URL });
    await c.connect();
    await c.del([`${prefix}keys`, `${prefix}hashes`, `${prefix}subs`]);
    await c.close();
  });
  return { REDIS_URL, ENTITLEMENT_REDIS_PREFIX: prefix, LEGACY_KEY_SECRET: LEGACY_SECRET };
}

for (const { name, env: makeEnv } of [
  { name: "file", env: fileEnv },
  { name: "redis", env: redisEnv },
]) describe.skipIf(name === "redis" && !inject("prerequisites").redis)(`CLI round trip (${name} store)`, () => {
  it("create, authenticate, list, revoke, authenticate again; legacy and subscription set", async () => {
    const env = await makeEnv();
    // The "running server": its own deps and store handle, opened before the CLI writes anything.
    const deps = await createEntitlementDeps(env);
    cleanups.push(() => deps.close());
    const impl = createEntitlementService(deps);
    const server = createRpcClient(EntitlementService, createRouterTransport(({ service }) => service(EntitlementService, impl)));
    const authenticate = (surface: Surface, apiKey: string) => server.authenticate({ surface, apiKey, clientIp: "203.0.113.1" });
    expect((await server.listKeys({})).keys).toHaveLength(0);

    const created = await cli(env, "create", "--kind", "live", "--plan", "scale", "--label", "ACME prod", "--json");
    expect(created.code).toBe(0);
    const issued = JSON.parse(created.out) as { key: string; id: string; kind: string; plan: string; label: string };
    expect(issued).toMatchObject({ kind: "live", plan: "scale", label: "ACME prod" });
    expect(issued.key).toMatch(/^svc_live_[0-9A-Za-z]{32,}$/);
    expect(created.err).toMatch(/shown only once/);

    const human = await cli(env, "create", "--kind", "test");
    expect(human.code).toBe(0);
    expect(human.out).toMatch(/^key: svc_test_[0-9A-Za-z]{32,}\nid: key_/);

    expect((await authenticate(Surface.STORMWATER, issued.key)).principal).toMatchObject({ tier: Tier.SCALE, bucket: `key:${issued.id}` });

    const listed = await cli(env, "list");
    expect(listed.code).toBe(0);
    expect(listed.out).toContain(issued.id);
    expect(listed.out).not.toContain(issued.key);
    const listedJson = JSON.parse((await cli(env, "list", "--json")).out) as Array<{ id: string }>;
    expect(listedJson.map((k) => k.id)).toContain(issued.id);

    const revoked = await cli(env, "revoke", issued.id);
    expect(revoked.code).toBe(0);
    expect(revoked.out).toMatch(new RegExp(`revoked ${issued.id}`));
    const err = await authenticate(Surface.STORMWATER, issued.key).catch((e) => ConnectError.from(e));
    expect((err as ConnectError).code).toBe(Code.Unauthenticated);

    const legacy = await cli(env, "legacy", "sub_1Abc_DEF");
    expect(legacy.code).toBe(0);
    expect(legacy.out).toBe(deriveLegacyKey(LEGACY_SECRET, "sub_1Abc_DEF"));
    const unknownSub = await authenticate(Surface.NWP, legacy.out).catch((e) => ConnectError.from(e));
    expect((unknownSub as ConnectError).code).toBe(Code.Unauthenticated);
    expect((await cli(env, "subscription", "set", "sub_1Abc_DEF", "active")).code).toBe(0);
    expect((await authenticate(Surface.NWP, legacy.out)).principal?.tier).toBe(Tier.PRO);
    expect((await cli(env, "subscription", "set", "sub_1Abc_DEF", "canceled")).code).toBe(0);
    expect((await authenticate(Surface.NWP, legacy.out)).principal?.tier).toBe(Tier.FREE);
  });
});

describe("CLI errors", () => {
  it("exits 2 with usage on bad arguments", async () => {
    const env = await fileEnv();
    const bad: string[][] = [
      [],
      ["frobnicate"],
      ["create"],
      ["create", "--kind", "gold"],
      ["create", "--kind", "live"],
      ["create", "--kind", "live", "--plan", "enterprise"],
      ["create", "--kind", "test", "--plan", "pro"],
      ["create", "--kind", "test", "--colour", "red"],
      ["create", "--kind", "test", "extra"],
      ["revoke"],
      ["revoke", "a", "b"],
      ["legacy"],
      ["legacy", "sub/../x"],
      ["subscription", "set", "sub_1"],
      ["subscription", "set", "sub_1", "paused"],
      ["subscription", "get", "sub_1", "active"],
    ];
    for (const argv of bad) {
      const r = await cli(env, ...argv);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.err).toMatch(/^error: /);
      expect(r.err).toContain("Usage: npm run keys");
    }
    const help = await cli(env, "--help");
    expect(help.code).toBe(0);
    expect(help.out).toContain("Usage");
  });

  it("exits 1 for an unknown key id and for a bad environment variable, naming it", async () => {
    const env = await fileEnv();
    const r = await cli(env, "revoke", "key_doesNotExist");
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/No API key has that id/);
    const badEnv = await cli({ ...env, PAYMENT_PROVIDER: "paypal" }, "list");
    expect(badEnv.code).toBe(1);
    expect(badEnv.err).toMatch(/PAYMENT_PROVIDER/);
  });

  it("warns when the development legacy secret is in use", async () => {
    const { STATE_DIR } = await fileEnv();
    const r = await cli({ STATE_DIR }, "legacy", "sub_1");
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/LEGACY_KEY_SECRET is not set/);
  });
});
