// Concurrent requests with one Idempotency-Key while the first is still computing: the others
// wait for its answer and replay it, so the engine runs once and one unit is billed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "@connectrpc/connect";
import { createDirectTransport, directRoute } from "@permits/rpc";
import { createLogger } from "@permits/runtime";
import { KeyKind, Plan } from "@permits/proto/entitlement/v1/entitlement";
import { StormwaterService } from "@permits/proto/stormwater/v1/stormwater";
import { buildApp, readGatewayConfig } from "@permits/gateway";
import { startEmbedded, type Embedded } from "./support/embedded.js";
import { generousTiersFile } from "./support/processes.js";

describe("Idempotency-Key with a slow first request", () => {
  let gw: Embedded;
  let app: Awaited<ReturnType<typeof buildApp>>;
  let computations = 0;
  let key = "";
  beforeAll(async () => {
    gw = await startEmbedded({ TIERS_FILE: generousTiersFile() });
    // The real stormwater service, reached through a handler that takes 300 ms.
    const slow = createDirectTransport([
      directRoute(StormwaterService, {
        determine: async (req) => {
          computations++;
          await new Promise((r) => setTimeout(r, 300));
          return gw.clients.stormwater.determine(req);
        },
      }),
    ]);
    app = await buildApp({ clients: { ...gw.clients, stormwater: createClient(StormwaterService, slow) }, config: readGatewayConfig({}), logger: createLogger("t", { level: "silent" }), clock: gw.clock, ready: async () => ({}) });
    key = (await gw.clients.entitlement.issueKey({ kind: KeyKind.LIVE, plan: Plan.PRO, label: "slow" })).secret;
  });
  afterAll(async () => {
    await app?.close();
    await gw?.close();
  });

  it("computes once, bills once, and answers every duplicate with the same bytes", async () => {
    const call = () => app.inject({ method: "POST", url: "/api/v1/determine", payload: JSON.stringify({ state: "NM", activity: "construction", acres: 3 }), headers: { "content-type": "application/json", "x-api-key": key, "idempotency-key": "slow-1" } });
    const results = await Promise.all([call(), call(), call()]);
    expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect(new Set(results.map((r) => r.body)).size).toBe(1);
    expect(results.filter((r) => r.headers["idempotent-replayed"] === "true")).toHaveLength(2);
    expect(computations).toBe(1);
    const usage = (await app.inject({ method: "GET", url: "/api/v1/usage", headers: { "x-api-key": key } })).json();
    expect(usage.data.quota.used).toBe(1);
  });
});
