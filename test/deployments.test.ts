// The same requests through the embedded deployment (one process, direct transport) and the
// distributed one (five processes, HTTP/2 between them) give the same answers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmbedded, type Embedded } from "./support/embedded.js";
import { sendToken } from "@permits/rpc";
import { generousTiersFile, startDistributed, TEST_OPERATOR_TOKEN, type Distributed } from "./support/processes.js";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { EntitlementService, SubscriptionStatus } from "@permits/proto/entitlement/v1/entitlement";

const SANDBOX = "svc_sandbox_public";
const json = { "content-type": "application/json" };
const sandbox = { "x-api-key": SANDBOX };

interface Req {
  method: "GET" | "POST" | "DELETE";
  url: string;
  body?: string;
  headers?: Record<string, string>;
}

const REQUESTS: Req[] = [
  { method: "POST", url: "/api/v1/determine", body: JSON.stringify({ state: "TX", activity: "construction", acres: 5 }), headers: json },
  { method: "POST", url: "/api/v1/determine", body: JSON.stringify({ state: "MA", activity: "construction", disturbedAcres: 12, maxDisturbedAcresAtOneTime: 4, dischargesToImpairedWater: true }), headers: json },
  { method: "POST", url: "/api/v1/determine", body: JSON.stringify({ state: "CO", activity: "industrial", acres: 2 }), headers: json },
  { method: "POST", url: "/api/v1/determine", body: JSON.stringify({ state: "ZZ", activity: "construction", acres: 2 }), headers: json },
  { method: "POST", url: "/api/v1/determine", body: JSON.stringify({ state: "TX", activity: "construction", acres: 2, color: "red" }), headers: json },
  { method: "POST", url: "/api/v1/determine", body: "{nope", headers: json },
  { method: "GET", url: "/api/v1/requirements?state=NH&activity=construction&acres=3&dischargesToTier2Water=yes" },
  { method: "GET", url: "/api/v1/requirements?state=NH&activity=construction&acres=3&aridClimate=maybe" },
  { method: "GET", url: "/api/v1/jurisdictions" },
  { method: "GET", url: "/api/v1/jurisdictions/NM" },
  { method: "GET", url: "/api/v1/credentials/TX?acres=2" },
  { method: "POST", url: "/api/v1/determine/nwp", body: JSON.stringify({ state: "CA", district: "SPK", activity: "residential-development", aquaticResourceType: "wetland", permanentImpactAcres: 0.3 }), headers: { ...json, ...sandbox } },
  { method: "POST", url: "/api/v1/determine/nwp", body: JSON.stringify({ state: "CA", district: "XXX", activity: "residential-development", aquaticResourceType: "wetland", permanentImpactAcres: 0.3 }), headers: { ...json, ...sandbox } },
  { method: "POST", url: "/api/v1/determine/nwp", body: JSON.stringify({ state: "CA" }), headers: json },
  { method: "POST", url: "/api/v1/determine/batch", body: JSON.stringify({ projects: [] }), headers: { ...json, ...sandbox } },
  { method: "GET", url: "/api/v1/nwp", headers: sandbox },
  { method: "GET", url: "/api/v1/nwp/12", headers: sandbox },
  { method: "GET", url: "/api/v1/nwp/26", headers: sandbox },
  { method: "GET", url: "/api/v1/district", headers: sandbox },
  { method: "GET", url: "/api/v1/district/SPK", headers: sandbox },
  { method: "GET", url: "/api/v1/state/CA/401", headers: sandbox },
  { method: "GET", url: "/api/v1/activity", headers: sandbox },
  { method: "GET", url: "/api/v1/nope" },
  { method: "DELETE", url: "/api/v1/determine" },
  { method: "GET", url: "/api/v1" },
];

interface Answer {
  status: number;
  body: unknown;
  tier?: string;
}

// generatedAt is the time of the answer, the only field allowed to differ.
function normalise(text: string): unknown {
  if (!text) return null;
  return JSON.parse(text, (k, v) => (k === "generatedAt" ? "<time>" : v));
}

let embedded: Embedded;
let distributed: Distributed;
beforeAll(async () => {
  const env = { TIERS_FILE: generousTiersFile() };
  [embedded, distributed] = await Promise.all([startEmbedded(env), startDistributed(env)]);
}, 60_000);
afterAll(async () => {
  await Promise.all([embedded?.close(), distributed?.close()]);
});

describe("embedded and distributed deployments", () => {
  it("are both ready", async () => {
    expect((await fetch(`${distributed.baseUrl}/readyz`)).status).toBe(200);
    expect((await embedded.app.inject({ method: "GET", url: "/readyz" })).statusCode).toBe(200);
  });

  for (const [i, r] of REQUESTS.entries()) {
    it(`answer ${r.method} ${r.url} the same`, async () => {
      const headers = { ...(r.headers ?? {}), "x-request-id": `same-${i}` };
      const e = await embedded.app.inject({ method: r.method, url: r.url, headers, payload: r.body });
      const d = await fetch(distributed.baseUrl + r.url, { method: r.method, headers, body: r.body });
      const a: Answer = { status: e.statusCode, body: normalise(e.body), tier: e.headers["x-service-tier"] as string | undefined };
      const b: Answer = { status: d.status, body: normalise(await d.text()), tier: d.headers.get("x-service-tier") ?? undefined };
      expect(b).toEqual(a);
      expect(a.status).toBeLessThan(500);
    });
  }
});

describe("the distributed deployment under many large answers", () => {
  it("answers 60 concurrent batches of 100 over one HTTP/2 session between gateway and nwp", async () => {
    // Regression: past 10 MB buffered in one session, Node refused streams (ENHANCE_YOUR_CALM).
    const e = createClient(EntitlementService, createConnectTransport({ baseUrl: distributed.serviceUrls.ENTITLEMENT_URL, httpVersion: "2", interceptors: [sendToken(TEST_OPERATOR_TOKEN)] }));
    await e.setLocalSubscription({ subscriptionId: "sub_many_batches", status: SubscriptionStatus.ACTIVE });
    const key = (await e.recoverLegacyKey({ subscriptionId: "sub_many_batches" })).apiKey;
    const project = { state: "CA", district: "SPK", activity: "residential-development", aquaticResourceType: "wetland", permanentImpactAcres: 0.3 };
    const body = JSON.stringify({ projects: Array(100).fill(project) });
    const statuses = await Promise.all(
      Array.from({ length: 60 }, async () => {
        const res = await fetch(`${distributed.baseUrl}/api/v1/determine/batch`, { method: "POST", body, headers: { "content-type": "application/json", "x-api-key": key } });
        await res.arrayBuffer();
        return res.status;
      }),
    );
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
  }, 60_000);
});
