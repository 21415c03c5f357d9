// Every key kind on both surfaces, through the real RPC stack (an in-process Connect transport),
// with the file store and the local provider.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Code, ConnectError, createClient, createRouterTransport, type Client } from "@connectrpc/connect";
import { Surface } from "@permits/proto/common/v1/common";
import { EntitlementService, KeyKind, Plan, SubscriptionStatus, Tier } from "@permits/proto/entitlement/v1/entitlement";
import { createLogger, ManualClock } from "@permits/runtime";
import { resourceNotFoundOf } from "@permits/rules";
import { Writable } from "node:stream";
import { deriveLegacyKey } from "./keys.js";
import { LocalProvider, ProviderUnavailableError, type PaymentProvider, type SubscriptionLookup } from "./provider.js";
import { createEntitlementService } from "./service.js";
import { LmdbStore } from "./lmdb-store.js";

const SANDBOX = "svc_sandbox_public";
const LEGACY_SECRET = "service-test-legacy-secret-123456";
const IP = "203.0.113.9";

/** Wraps a provider to count calls, and can be switched to "down". */
class ProbeProvider implements PaymentProvider {
  readonly name = "local" as const;
  calls = 0;
  down = false;
  gate: Promise<void> | undefined;
  constructor(private readonly inner: PaymentProvider) {}
  async lookupSubscription(id: string): Promise<SubscriptionLookup> {
    this.calls++;
    if (this.gate) await this.gate;
    if (this.down) throw new ProviderUnavailableError("connection");
    return this.inner.lookupSubscription(id);
  }
}

const logLines: string[] = [];
const secrets: string[] = [SANDBOX, LEGACY_SECRET];
let dir: string;
let store: LmdbStore;
let provider: ProbeProvider;
let client: Client<typeof EntitlementService>;

async function auth(surface: Surface, apiKey?: string, clientIp = IP) {
  return (await client.authenticate({ surface, apiKey, clientIp })).principal!;
}

async function authError(surface: Surface, apiKey?: string, clientIp = IP): Promise<ConnectError> {
  try {
    await client.authenticate({ surface, apiKey, clientIp });
  } catch (err) {
    return ConnectError.from(err);
  }
  throw new Error("expected an error");
}

async function issue(kind: KeyKind, plan = Plan.UNSPECIFIED) {
  const res = await client.issueKey({ kind, plan, label: "t" });
  secrets.push(res.secret);
  return { id: res.key!.id, secret: res.secret };
}

function legacy(subscriptionId: string): string {
  const key = deriveLegacyKey(LEGACY_SECRET, subscriptionId);
  secrets.push(key);
  return key;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "entitlement-svc-"));
  store = await LmdbStore.open(dir);
  provider = new ProbeProvider(new LocalProvider(store));
  const logger = createLogger("entitlement", {
    level: "trace",
    destination: new Writable({ write: (chunk, _enc, done) => (logLines.push(String(chunk)), done()) }),
  });
  const impl = createEntitlementService({ store, provider, sandboxKey: SANDBOX, legacySecret: LEGACY_SECRET, clock: new ManualClock(Date.UTC(2024, 0, 1)), logger });
  client = createClient(EntitlementService, createRouterTransport(({ service }) => service(EntitlementService, impl)));
  await store.setSubscription("sub_1Active", "active");
  await store.setSubscription("sub_1Trial_x", "trialing");
  await store.setSubscription("sub_1Lapsed", "canceled");
});
afterAll(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

describe("stormwater surface (document 1)", () => {
  const S = Surface.STORMWATER;

  it("no key: anonymous, per IP, not billable, never an error", async () => {
    const p = await auth(S);
    expect(p).toMatchObject({ surface: S, tier: Tier.ANONYMOUS, bucket: `ip:${IP}`, billable: false, keyKind: KeyKind.UNSPECIFIED });
    expect(p.keyId).toBeUndefined();
  });

  it("sandbox key: per IP, never billable", async () => {
    expect(await auth(S, SANDBOX)).toMatchObject({ tier: Tier.SANDBOX, bucket: `ip:${IP}`, billable: false, keyKind: KeyKind.SANDBOX });
    expect((await auth(S, SANDBOX, "198.51.100.1")).bucket).toBe("ip:198.51.100.1");
  });

  it("test key: own bucket, never billable", async () => {
    const k = await issue(KeyKind.TEST);
    expect(await auth(S, k.secret)).toMatchObject({ tier: Tier.TEST, bucket: `key:${k.id}`, billable: false, keyId: k.id, keyKind: KeyKind.TEST });
  });

  it("live keys: pro and scale, billable, own bucket", async () => {
    const pro = await issue(KeyKind.LIVE, Plan.PRO);
    const scale = await issue(KeyKind.LIVE, Plan.SCALE);
    expect(await auth(S, pro.secret)).toMatchObject({ tier: Tier.PRO, plan: Plan.PRO, billable: true, bucket: `key:${pro.id}`, keyId: pro.id, keyKind: KeyKind.LIVE });
    expect(await auth(S, scale.secret)).toMatchObject({ tier: Tier.SCALE, plan: Plan.SCALE, billable: true, bucket: `key:${scale.id}` });
  });

  it("malformed or unknown keys: Unauthenticated", async () => {
    const live = await issue(KeyKind.LIVE, Plan.PRO);
    for (const bad of ["", "garbage", "svc_live_short", `${live.secret}x`, live.secret.slice(0, -1) + "!", live.secret.replace("svc_live_", "svc_test_"), `svc_live_${"Z".repeat(40)}`]) {
      expect((await authError(S, bad)).code, bad).toBe(Code.Unauthenticated);
    }
  });

  it("revoked live and test keys: Unauthenticated, on the very next call", async () => {
    for (const [kind, plan] of [[KeyKind.LIVE, Plan.PRO], [KeyKind.TEST, Plan.UNSPECIFIED]] as const) {
      const k = await issue(kind, plan);
      await auth(S, k.secret);
      const { key } = await client.revokeKey({ id: k.id });
      expect(key?.revokedAt).toBe("2024-01-01T00:00:00.000Z");
      const err = await authError(S, k.secret);
      expect(err.code).toBe(Code.Unauthenticated);
      expect(err.rawMessage).toMatch(/revoked/);
    }
  });

  it("a legacy key (wrong surface): Unauthenticated without asking the provider", async () => {
    const before = provider.calls;
    expect((await authError(S, legacy("sub_1Active"))).code).toBe(Code.Unauthenticated);
    expect(provider.calls).toBe(before);
  });

  it("needs a client IP for per-IP buckets and a known surface", async () => {
    expect((await authError(S, undefined, "")).code).toBe(Code.InvalidArgument);
    expect((await authError(Surface.UNSPECIFIED, SANDBOX)).code).toBe(Code.InvalidArgument);
  });
});

describe("nwp surface (document 2)", () => {
  const N = Surface.NWP;

  it("no key: Unauthenticated (the gateway answers missing_api_key)", async () => {
    expect((await authError(N)).code).toBe(Code.Unauthenticated);
  });

  it("sandbox key: tier sandbox, per IP", async () => {
    expect(await auth(N, SANDBOX)).toMatchObject({ surface: N, tier: Tier.SANDBOX, bucket: `ip:${IP}`, billable: false, keyKind: KeyKind.SANDBOX });
  });

  it("legacy key, active or trialing subscription: pro, bucketed by subscription", async () => {
    expect(await auth(N, legacy("sub_1Active"))).toMatchObject({ tier: Tier.PRO, plan: Plan.PRO, bucket: "sub:sub_1Active", keyId: "sub_1Active", keyKind: KeyKind.LEGACY });
    expect(await auth(N, legacy("sub_1Trial_x"))).toMatchObject({ tier: Tier.PRO, bucket: "sub:sub_1Trial_x", keyId: "sub_1Trial_x" });
  });

  it("lapsed Pro key: falls back to free on the same bucket; reactivation restores pro", async () => {
    const key = legacy("sub_1Lapsed");
    expect(await auth(N, key)).toMatchObject({ tier: Tier.FREE, plan: Plan.UNSPECIFIED, bucket: "sub:sub_1Lapsed", keyKind: KeyKind.LEGACY });
    await client.setLocalSubscription({ subscriptionId: "sub_1Lapsed", status: SubscriptionStatus.ACTIVE });
    expect((await auth(N, key)).tier).toBe(Tier.PRO);
    await client.setLocalSubscription({ subscriptionId: "sub_1Lapsed", status: SubscriptionStatus.CANCELED });
    expect((await auth(N, key)).tier).toBe(Tier.FREE);
  });

  it("checks the provider on every call", async () => {
    const key = legacy("sub_1Active");
    const before = provider.calls;
    await auth(N, key);
    await auth(N, key);
    expect(provider.calls).toBe(before + 2);
  });

  it("a subscription the provider does not know: Unauthenticated", async () => {
    expect((await authError(N, legacy("sub_1Unknown"))).code).toBe(Code.Unauthenticated);
  });

  it("forged or mangled keys fail on the signature alone, without a provider call", async () => {
    const good = legacy("sub_1Active");
    const before = provider.calls;
    const forged = [
      deriveLegacyKey("an-attacker-guessed-secret-000", "sub_1Active"),
      good.slice(0, -1) + (good.endsWith("0") ? "1" : "0"),
      good.slice(0, -2),
      good.replace("nwp_", "abc_"),
      good.replace("sub_1Active", "sub_1Activf"),
      good.toUpperCase(),
      "nwp_sub_1Active",
      "nwp",
    ];
    for (const k of forged) expect((await authError(N, k)).code, k).toBe(Code.Unauthenticated);
    expect(provider.calls).toBe(before);
  });

  it("document 1 keys (live, test, revoked) on the nwp surface: Unauthenticated", async () => {
    const live = await issue(KeyKind.LIVE, Plan.PRO);
    const test = await issue(KeyKind.TEST);
    for (const k of [live.secret, test.secret]) expect((await authError(N, k)).code).toBe(Code.Unauthenticated);
    await client.revokeKey({ id: live.id });
    expect((await authError(N, live.secret)).code).toBe(Code.Unauthenticated);
  });

  it("provider down: Unavailable with retry-after, saying retry and not that the subscription ended", async () => {
    provider.down = true;
    try {
      const err = await authError(N, legacy("sub_1Active"));
      expect(err.code).toBe(Code.Unavailable);
      expect(err.metadata.get("retry-after")).toBe("5");
      expect(err.rawMessage).toMatch(/retry/i);
      expect(err.rawMessage).toMatch(/does not mean the subscription ended/);
    } finally {
      provider.down = false;
    }
  });

  it("single flight: concurrent checks of one subscription share one provider call", async () => {
    const key = legacy("sub_1Active");
    let open!: () => void;
    provider.gate = new Promise<void>((r) => (open = r));
    const before = provider.calls;
    const pending = Array.from({ length: 10 }, () => auth(N, key));
    await new Promise((r) => setTimeout(r, 20));
    open();
    const principals = await Promise.all(pending);
    provider.gate = undefined;
    expect(provider.calls).toBe(before + 1);
    expect(principals.every((p) => p.tier === Tier.PRO)).toBe(true);
    await auth(N, key); // settled calls are not cached
    expect(provider.calls).toBe(before + 2);
  });
});

describe("key recovery and administration", () => {
  it("recovers the derived key for a known subscription, active or lapsed", async () => {
    for (const id of ["sub_1Active", "sub_1Lapsed"]) {
      const { apiKey } = await client.recoverLegacyKey({ subscriptionId: id });
      expect(apiKey).toBe(legacy(id));
      expect((await auth(Surface.NWP, apiKey)).keyId).toBe(id);
    }
  });

  it("NotFound for an unknown subscription (listing no other ids), InvalidArgument for a bad id, Unavailable when down", async () => {
    const err = await client.recoverLegacyKey({ subscriptionId: "sub_1Nobody" }).catch((e) => ConnectError.from(e));
    expect(err).toBeInstanceOf(ConnectError);
    expect((err as ConnectError).code).toBe(Code.NotFound);
    expect(resourceNotFoundOf(err as ConnectError)?.validValues).toEqual([]);
    const bad = await client.recoverLegacyKey({ subscriptionId: "../etc" }).catch((e) => ConnectError.from(e));
    expect((bad as ConnectError).code).toBe(Code.InvalidArgument);
    provider.down = true;
    const down = await client.recoverLegacyKey({ subscriptionId: "sub_1Active" }).catch((e) => ConnectError.from(e));
    provider.down = false;
    expect((down as ConnectError).code).toBe(Code.Unavailable);
  });

  it("validates IssueKey arguments", async () => {
    for (const req of [
      { kind: KeyKind.LIVE, plan: Plan.UNSPECIFIED, label: "" },
      { kind: KeyKind.TEST, plan: Plan.PRO, label: "" },
      { kind: KeyKind.SANDBOX, plan: Plan.UNSPECIFIED, label: "" },
      { kind: KeyKind.LEGACY, plan: Plan.PRO, label: "" },
      { kind: KeyKind.UNSPECIFIED, plan: Plan.UNSPECIFIED, label: "" },
      { kind: KeyKind.TEST, plan: Plan.UNSPECIFIED, label: "bad\nlabel" },
    ]) {
      const err = await client.issueKey(req).catch((e) => ConnectError.from(e));
      expect((err as ConnectError).code).toBe(Code.InvalidArgument);
    }
  });

  it("lists keys without secrets or hashes", async () => {
    const { keys } = await client.listKeys({});
    expect(keys.length).toBeGreaterThan(3);
    const text = JSON.stringify(keys);
    for (const s of secrets) expect(text).not.toContain(s);
    expect(text).not.toMatch(/[0-9a-f]{64}/);
  });

  it("RevokeKey of an unknown id: NotFound; SetLocalSubscription needs a status", async () => {
    expect(((await client.revokeKey({ id: "key_nope" }).catch((e) => ConnectError.from(e))) as ConnectError).code).toBe(Code.NotFound);
    const err = await client.setLocalSubscription({ subscriptionId: "sub_1", status: SubscriptionStatus.UNSPECIFIED }).catch((e) => ConnectError.from(e));
    expect((err as ConnectError).code).toBe(Code.InvalidArgument);
  });
});

describe("logs", () => {
  it("wrote no key, subscription id or secret to any log line", () => {
    expect(logLines.length).toBeGreaterThan(10);
    const all = logLines.join("");
    for (const s of secrets) expect(all).not.toContain(s);
    for (const id of ["sub_1Active", "sub_1Lapsed", "sub_1Trial_x"]) expect(all).not.toContain(id);
    expect(all).toMatch(/payment provider unavailable/);
    expect(all).toMatch(/api key refused/);
  });
});
