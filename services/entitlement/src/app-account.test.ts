// The app's sign-in answer (ResolveAccount) for every kind of key, through the real RPC stack.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Code, ConnectError, createClient, createRouterTransport, type Client } from "@connectrpc/connect";
import { AppAccess, EntitlementService, KeyKind, Plan, SubscriptionStatus } from "@permits/proto/entitlement/v1/entitlement";
import { ManualClock } from "@permits/runtime";
import { deriveLegacyKey } from "./keys.js";
import { LocalProvider } from "./provider.js";
import { createEntitlementService } from "./service.js";
import { LmdbStore } from "./lmdb-store.js";

const SANDBOX = "svc_sandbox_public";
const LEGACY_SECRET = "app-account-test-legacy-secret-1234";
let dir: string;
let store: LmdbStore;
let client: Client<typeof EntitlementService>;

async function refusal(apiKey: string): Promise<ConnectError> {
  try {
    await client.resolveAccount({ apiKey });
  } catch (err) {
    return ConnectError.from(err);
  }
  throw new Error("expected a refusal");
}

/** A local checkout of a stormwater plan, as /checkout does it: its subscription and its two keys. */
async function buy(planId: string) {
  const { sessionId } = await client.startCheckout({ planId, successUrl: "http://x/s?session_id={CHECKOUT_SESSION_ID}", cancelUrl: "http://x/c" });
  const { subscriptionId } = await client.completeLocalCheckout({ sessionId });
  const { keys } = await client.revealCheckout({ sessionId });
  return { subscriptionId, live: keys.find((k) => k.kind === KeyKind.LIVE)!, test: keys.find((k) => k.kind === KeyKind.TEST)! };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "entitlement-app-"));
  store = await LmdbStore.open(dir);
  const impl = createEntitlementService({ store, provider: new LocalProvider(store), sandboxKey: SANDBOX, legacySecret: LEGACY_SECRET, clock: new ManualClock(Date.UTC(2026, 10, 28)) });
  client = createClient(EntitlementService, createRouterTransport(({ service }) => service(EntitlementService, impl)));
});

afterAll(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

describe("ResolveAccount", () => {
  it("gives a checkout's live key the workspace of its subscription's account, and its test key no app", async () => {
    const { subscriptionId, live, test } = await buy("stormwater_scale");
    const open = await client.resolveAccount({ apiKey: live.secret });
    expect([open.accountId, open.plan, open.access, open.keyId]).toEqual([`sub:${subscriptionId}`, Plan.SCALE, AppAccess.WORKSPACE, live.keyId]);
    const free = await client.resolveAccount({ apiKey: test.secret });
    expect([free.accountId, free.access, free.keyId]).toEqual(["", AppAccess.NOT_INCLUDED, test.keyId]);
  });

  it("opens a cancelled subscription's account read-only, with the same account id", async () => {
    const { subscriptionId, live } = await buy("stormwater_pro");
    const open = await client.resolveAccount({ keyId: live.keyId! });
    expect(open.access).toBe(AppAccess.WORKSPACE); // by its id, as a signed-in session asks
    await client.setLocalSubscription({ subscriptionId, status: SubscriptionStatus.CANCELED });
    const after = await client.resolveAccount({ apiKey: live.secret });
    expect([after.accountId, after.plan, after.access]).toEqual([`sub:${subscriptionId}`, Plan.PRO, AppAccess.READ_ONLY]);
    expect((await client.resolveAccount({ keyId: live.keyId! })).access).toBe(AppAccess.READ_ONLY);
  });

  it("refuses a key the operator revoked while its plan runs", async () => {
    const { live } = await buy("stormwater_pro");
    await client.revokeKey({ id: live.keyId! });
    const err = await refusal(live.secret);
    expect([err.code, err.rawMessage]).toEqual([Code.Unauthenticated, "The API key has been revoked."]);
  });

  it("makes a key issued on its own an account of its own; revoking it closes the app", async () => {
    const { key, secret } = await client.issueKey({ kind: KeyKind.LIVE, plan: Plan.PRO, label: "cli" });
    const open = await client.resolveAccount({ apiKey: secret });
    expect([open.accountId, open.plan, open.access]).toEqual([`key:${key!.id}`, Plan.PRO, AppAccess.WORKSPACE]);
    await client.revokeKey({ id: key!.id });
    expect((await refusal(secret)).code).toBe(Code.Unauthenticated);
  });

  it("tells the sandbox key and a document 2 key the app is not in their plan; refuses unknown keys", async () => {
    expect((await client.resolveAccount({ apiKey: SANDBOX })).access).toBe(AppAccess.NOT_INCLUDED);
    expect((await client.resolveAccount({ apiKey: deriveLegacyKey(LEGACY_SECRET, "sub_doc2") })).access).toBe(AppAccess.NOT_INCLUDED);
    for (const bad of ["svc_live_" + "0".repeat(40), "nonsense", ""]) expect((await refusal(bad)).code).toBe(Code.Unauthenticated);
  });
});
