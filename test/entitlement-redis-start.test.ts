// An entitlement service started while its Redis is away serves at once, as during any later
// Redis outage: a well-formed key and the operator's calls are refused as retryable (Unavailable), the sandbox key and anonymous
// callers are served, and once Redis answers keys are issued and recognised. (It used to wait for
// Redis before listening, so a restart or a rollout during an outage never became ready.)
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { sendToken } from "@permits/rpc";
import { Surface } from "@permits/proto/common/v1/common";
import { EntitlementService, KeyKind, Tier } from "@permits/proto/entitlement/v1/entitlement";
import { ensureBuilt, freePort, startProcess, startRedisServer, TEST_INTERNAL_TOKENS, TEST_OPERATOR_TOKEN, waitFor, type Proc } from "./support/processes.js";

describe.skipIf(!inject("prerequisites").redisServer)("the entitlement service started before Redis", () => {
  let entitlement: Proc;
  let redis: ChildProcess | undefined;
  let redisPort: number;
  let client: ReturnType<typeof createClient<typeof EntitlementService>>;

  beforeAll(async () => {
    ensureBuilt();
    redisPort = await freePort(); // nothing listens there yet
    const port = await freePort();
    entitlement = startProcess("entitlement", "services/entitlement/dist/main.js", { PORT: String(port), REDIS_URL: `redis://127.0.0.1:${redisPort}`, INTERNAL_TOKENS: TEST_INTERNAL_TOKENS, LOG_LEVEL: "silent" });
    client = createClient(EntitlementService, createConnectTransport({ baseUrl: `http://127.0.0.1:${port}`, httpVersion: "2", interceptors: [sendToken(TEST_OPERATOR_TOKEN)] }));
  }, 120_000);
  afterAll(() => {
    entitlement?.child.kill("SIGKILL");
    redis?.kill("SIGKILL");
  });

  const outcome = (call: Promise<unknown>) => call.then(() => "ok", (e) => Code[ConnectError.from(e).code]);

  it("listens without Redis, refuses keyed calls as retryable, serves the sandbox key, and recognises keys once Redis answers", async () => {
    // Listening within seconds, with no Redis anywhere.
    await waitFor(async () => (await outcome(client.authenticate({ surface: Surface.STORMWATER, clientIp: "203.0.113.9" }))) === "ok", 10_000, "the entitlement service to answer");
    const sandbox = await client.authenticate({ surface: Surface.NWP, apiKey: "svc_sandbox_public", clientIp: "203.0.113.9" });
    expect(sandbox.principal?.tier).toBe(Tier.SANDBOX);
    expect(await outcome(client.authenticate({ surface: Surface.STORMWATER, apiKey: "svc_live_0123456789ABCDEFGHIJabcdefghij0123456789", clientIp: "203.0.113.9" }))).toBe("Unavailable");
    // The operator's calls too: an outage of the store is retryable, not an internal error.
    expect(await outcome(client.issueKey({ kind: KeyKind.TEST, label: "while away" }))).toBe("Unavailable");
    expect(await outcome(client.listKeys({}))).toBe("Unavailable");

    redis = await startRedisServer(redisPort);
    // The client reconnects on its own (back-off up to 3 s).
    let secret = "";
    await waitFor(async () => {
      secret = (await client.issueKey({ kind: KeyKind.TEST, label: "after" }).catch(() => ({ secret: "" }))).secret;
      return secret !== "";
    }, 15_000, "Redis to be reached");
    const principal = (await client.authenticate({ surface: Surface.STORMWATER, apiKey: secret, clientIp: "203.0.113.9" })).principal;
    expect([principal?.tier, principal?.keyKind]).toEqual([Tier.TEST, KeyKind.TEST]);
  }, 60_000);
});
