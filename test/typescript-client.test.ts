// The typed client (clients/typescript) against the embedded gateway on a loopback port: both
// surfaces with both key schemes, and an error of each vocabulary read through its type. The
// examples in docs/using.md are clients/typescript/examples/*.ts, which `npm run build` type-checks.
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeyKind, SubscriptionStatus } from "@permits/proto/entitlement/v1/entitlement";
import { createPermitsClient, errorSummary, isNwpError, type ApiError, type NwpError, type StormwaterError } from "@permits/client";
import { startEmbedded, type Embedded } from "./support/embedded.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const PROJECT = { state: "CA", district: "SPK", activity: "residential-development", aquaticResourceType: "wetland", permanentImpactAcres: 0.3 } as const;

let gw: Embedded;
let baseUrl: string;
let testKey: string;
let legacyKey: string;
beforeAll(async () => {
  gw = await startEmbedded();
  await gw.app.listen({ host: "127.0.0.1", port: 0 });
  baseUrl = `http://127.0.0.1:${(gw.app.server.address() as AddressInfo).port}`;
  testKey = (await gw.clients.entitlement.issueKey({ kind: KeyKind.TEST, label: "typed client" })).secret;
  await gw.clients.entitlement.setLocalSubscription({ subscriptionId: "sub_client_1", status: SubscriptionStatus.ACTIVE });
  legacyKey = (await gw.clients.entitlement.recoverLegacyKey({ subscriptionId: "sub_client_1" })).apiKey;
});
afterAll(async () => gw?.close());

describe("document 1 (stormwater) with a document 1 key", () => {
  it("answers a determination, typed", async () => {
    const api = createPermitsClient({ baseUrl, apiKey: testKey });
    const { data, error, response } = await api.POST("/api/v1/determine", { body: { state: "NM", activity: "construction", acres: 3 } });
    expect(error).toBeUndefined();
    expect(response.status).toBe(200);
    expect(data!.request_id).toBe(response.headers.get("x-request-id"));
    expect(data!.data.coverage).toBe("required");
    expect(data!.data.permit).toMatchObject({ id: "cgp-2022", authority: "EPA", effectiveDate: "2022-02-17", confidence: "verified" });
    expect(data!.data.jurisdiction?.code).toBe("NM");
    expect(data!.data.input).toMatchObject({ state: "NM", activity: "construction", disturbedAcres: 3, partOfLargerPlan: false });
    expect(data!.attribution).toBeTruthy(); // a test key is never billed
  });

  it("reads a refused key as a document 1 error", async () => {
    const api = createPermitsClient({ baseUrl, apiKey: "svc_live_doesnotexist0000000000000000" });
    const { data, error, response } = await api.POST("/api/v1/determine", { body: { state: "NM", activity: "construction", acres: 3 } });
    expect(data).toBeUndefined();
    expect(response.status).toBe(401);
    const body: StormwaterError = error!;
    expect(body.error.code).toBe("unauthorized");
    expect(body.request_id).toBe(response.headers.get("x-request-id"));
    expect(isNwpError(body)).toBe(false);
  });
});

describe("document 2 (NWP) with a document 2 legacy key", () => {
  it("answers a determination at the pro tier, typed", async () => {
    const api = createPermitsClient({ baseUrl, legacyKey });
    const { data, error, response } = await api.POST("/api/v1/determine/nwp", { body: PROJECT });
    expect(error).toBeUndefined();
    expect(response.status).toBe(200);
    expect(response.headers.get("x-service-tier")).toBe("pro");
    expect(data!.meta.requestId).toBe(response.headers.get("x-request-id"));
    expect(data!.meta.ruleset).toMatchObject({ id: "nwp-2026", effectiveDate: "2026-03-15", expiryDate: "2031-03-15" });
    // No held limit may admit a project today (issue 27): eligibility is unknown, never assumed.
    expect(data!.data.verdict).toBe("insufficient-data");
    expect(data!.data.confidence).toBe("unverified");
    expect(data!.data.candidates.map((c) => [c.number, c.eligible])).toEqual([[29, null]]);
    expect(data!.data.pcn?.reviewDays).toBe(45);
  });

  it("reads an unknown district as a document 2 error, with the values that would have worked", async () => {
    const api = createPermitsClient({ baseUrl, legacyKey });
    const { error, response } = await api.POST("/api/v1/determine/nwp", { body: { ...PROJECT, district: "XYZ" } });
    expect(response.status).toBe(422);
    const body: NwpError = error!;
    expect(body.error.code).toBe("invalid_request");
    expect(body.error.fields?.[0]?.field).toBe("district");
    expect(body.error.knownValues?.district).toHaveLength(38);
    expect(body.error.requestId).toBe(response.headers.get("x-request-id"));
  });
});

describe("a route that answers both vocabularies (GET /api/v1/usage)", () => {
  it("tells them apart by the key that was refused", async () => {
    const forged = `${legacyKey.slice(0, -4)}${legacyKey.endsWith("0000") ? "1111" : "0000"}`;
    const cases = [
      [createPermitsClient({ baseUrl, apiKey: "svc_test_doesnotexist000000000000000" }), false, "unauthorized"],
      [createPermitsClient({ baseUrl, legacyKey: forged }), true, "invalid_api_key"],
    ] as const;
    for (const [api, nwp, code] of cases) {
      const { error, response } = await api.GET("/api/v1/usage");
      expect(response.status).toBe(401);
      const body: ApiError = error!;
      expect(isNwpError(body)).toBe(nwp);
      expect(errorSummary(body)).toEqual({ code, message: expect.stringMatching(/key/i), requestId: response.headers.get("x-request-id") });
    }
  });
});

describe("the client itself", () => {
  it("refuses a malformed key before any request", () => {
    expect(() => createPermitsClient({ baseUrl, apiKey: "" })).toThrow(/apiKey must be a non-empty key/);
    expect(() => createPermitsClient({ baseUrl, legacyKey: "nwp_a b" })).toThrow(/legacyKey must be/);
  });

  it("sends the key it holds, and none without one (document 1's anonymous tier)", async () => {
    const tierOf = async (api: ReturnType<typeof createPermitsClient>) => {
      const { data, response } = await api.GET("/api/v1/usage");
      expect(response.status).toBe(200);
      return data && "data" in data ? data.data.tier : undefined;
    };
    expect(await tierOf(createPermitsClient({ baseUrl }))).toBe("anonymous");
    expect(await tierOf(createPermitsClient({ baseUrl, apiKey: testKey }))).toBe("test");
  });

  it("is what docs/using.md shows: its examples, which `npm run build` type-checks, verbatim", () => {
    const readme = readFileSync(path.join(ROOT, "docs/using.md"), "utf8");
    const example = (name: string) => readFileSync(path.join(ROOT, "clients/typescript/examples", name), "utf8");
    expect(example("readme.ts").trimEnd().split("\n")).toHaveLength(5);
    for (const name of ["readme.ts", "internal-connect.ts"]) expect(readme.includes(`\`\`\`ts\n${example(name)}\`\`\``), `docs/using.md shows examples/${name} in a ts block`).toBe(true);
  });
});
