// A batch answer crosses from the nwp service with each distinct coverage-gap and provenance list
// once (nwp.proto DetermineBatchResponse.shared_*); the gateway puts them back into every item.
// The public answer must not show it: a gateway calling a remote nwp service (real HTTP/2 and
// protobuf between them) writes the same bytes as the embedded one, and each batch item is the
// determination POST /api/v1/determine/nwp gives for that project alone.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Interceptor } from "@connectrpc/connect";
import { ManualClock } from "@permits/common/clock";
import { createLogger } from "@permits/common/logger";
import { serve, type RunningService } from "@permits/common/serve";
import { build } from "@permits/nwp/build";
import { SubscriptionStatus } from "@permits/proto/entitlement/v1/entitlement";
import { create } from "@bufbuild/protobuf";
import { DetermineBatchResponseSchema, type DetermineBatchResponse } from "@permits/proto/nwp/v1/nwp";
import { determinationsOf } from "@permits/gateway/surfaces/nwp/batch-lists";
import { batchOf100 } from "../bench/requests.mjs";
import { startEmbedded, type Embedded } from "./support/embedded.js";
import { generousTiersFile, TEST_TOKENS } from "./support/processes.js";
import { EVALUATION_DATE } from "./support/target.js";

const logger = createLogger("test", { level: "silent" });
const clock = new ManualClock(Date.parse("2026-11-24T12:00:00Z"));
const env = { TIERS_FILE: generousTiersFile(), EVALUATION_DATE };

// The batch of the benchmark (100 projects, ~18 distinct lists of each kind), three of them refused.
const projects: unknown[] = batchOf100().projects;
projects[3] = { ...(projects[3] as object), district: "NOPE" };
projects[50] = { ...(projects[50] as object), permanentImpactAcres: "x" };
projects[98] = { ...(projects[98] as object), aquaticResourceType: "lava" };
const body = JSON.stringify({ projects });

let nwp: RunningService;
let embedded: Embedded;
let remote: Embedded;
const wire: DetermineBatchResponse[] = [];
const keys = new Map<Embedded, string>();

beforeAll(async () => {
  const built = await build({ env: { EVALUATION_DATE }, logger, clock });
  nwp = await serve({ name: "nwp", services: [{ service: built.service, impl: built.impl }], host: "127.0.0.1", port: 0, logger });
  // What the remote gateway receives from the nwp service, as decoded from the wire.
  const record: Interceptor = (next) => async (req) => {
    const res = await next(req);
    if (!res.stream && req.method.name === "DetermineBatch") wire.push(res.message as DetermineBatchResponse);
    return res;
  };
  [embedded, remote] = await Promise.all([
    startEmbedded(env, { clock }),
    startEmbedded({ ...env, NWP_URL: `http://127.0.0.1:${nwp.port}`, GATEWAY_TOKEN: TEST_TOKENS.gateway }, { clock, interceptors: { remote: [record] } }),
  ]);
  for (const gw of [embedded, remote]) {
    await gw.clients.entitlement.setLocalSubscription({ subscriptionId: "sub_batch_wire", status: SubscriptionStatus.ACTIVE });
    keys.set(gw, (await gw.clients.entitlement.recoverLegacyKey({ subscriptionId: "sub_batch_wire" })).apiKey);
  }
});
afterAll(async () => {
  await Promise.all([embedded?.close(), remote?.close()]);
  await nwp?.close();
});

const post = (gw: Embedded, url: string, payload: string, requestId: string) =>
  gw.app.inject({ method: "POST", url, payload, headers: { "content-type": "application/json", "x-api-key": keys.get(gw)!, "x-request-id": requestId } });

describe("a batch answer with shared lists", () => {
  it("is sent with each distinct list once", async () => {
    wire.length = 0;
    const answer = await post(remote, "/api/v1/determine/batch", body, "wire-1");
    expect(answer.statusCode).toBe(200);
    expect(wire).toHaveLength(1);
    const [res] = wire;
    // The gateway refuses the malformed number itself; the service refuses the unknown values.
    expect(res.items.filter((i) => !i.ok).map((i) => i.index)).toEqual([3, 98]);
    expect([res.items.length, res.sharedCoverageGaps.length, res.sharedProvenance.length]).toEqual([99, 18, 17]);
    // As many as the public answer has distinct lists.
    const determinations = (answer.json().data as { determination?: { coverageGaps: unknown; provenance: unknown } }[]).flatMap((i) => i.determination ?? []);
    expect(determinations).toHaveLength(97);
    expect(new Set(determinations.map((d) => JSON.stringify(d.coverageGaps))).size).toBe(18);
    expect(new Set(determinations.map((d) => JSON.stringify(d.provenance))).size).toBe(17);
    for (const item of res.items.filter((i) => i.ok)) {
      expect(item.determination?.coverageGaps).toEqual([]);
      expect(item.determination?.provenance).toEqual([]);
      expect(item.sharedCoverageGaps).toBeLessThan(18);
      expect(item.sharedProvenance).toBeLessThan(17);
    }
  });

  it("reads the same, byte for byte, from a remote nwp service as from the embedded one", async () => {
    const [e, r] = await Promise.all([post(embedded, "/api/v1/determine/batch", body, "same-batch"), post(remote, "/api/v1/determine/batch", body, "same-batch")]);
    expect([e.statusCode, r.statusCode]).toEqual([200, 200]);
    expect(r.rawPayload.equals(e.rawPayload)).toBe(true);
    expect(e.json().meta).toMatchObject({ count: 100, succeeded: 97, failed: 3 });
  });

  it("gives each item the determination its project has alone, lists included", async () => {
    const data = (await post(remote, "/api/v1/determine/batch", body, "batch-vs-single")).json().data as { ok: boolean; determination?: unknown }[];
    const singles = await Promise.all(projects.map((p, i) => (data[i].ok ? post(remote, "/api/v1/determine/nwp", JSON.stringify(p), `single-${i}`) : undefined)));
    for (const [i, item] of data.entries()) {
      if (!item.ok) continue;
      expect(singles[i]!.statusCode).toBe(200);
      // The same text: the same fields in the same order, each list whole.
      expect(JSON.stringify(item.determination)).toBe(JSON.stringify(singles[i]!.json().data));
    }
    expect(data.filter((i) => !i.ok).map((i) => (i as unknown as { index: number }).index)).toEqual([3, 50, 98]);
  });
});

describe("determinationsOf (the gateway putting shared lists back)", () => {
  const res = () =>
    create(DetermineBatchResponseSchema, {
      sharedCoverageGaps: [{ gaps: ["gap A"] }, { gaps: ["gap B", "gap C"] }],
      sharedProvenance: [{ entries: [{ label: "Rule", url: "https://www.govinfo.gov/" }] }],
      items: [
        { index: 0, ok: true, determination: { headline: "first" }, sharedCoverageGaps: 1, sharedProvenance: 0 },
        { index: 1, ok: true, determination: { headline: "second" }, sharedCoverageGaps: 1, sharedProvenance: 0 },
        { index: 2, ok: true, determination: { headline: "own lists", coverageGaps: ["own gap"] } },
        { index: 3, ok: false },
      ],
    });

  it("gives every item pointing at a list that same frozen list (public-json.ts writes it once), leaving the response's determinations as they were", () => {
    const r = res();
    const of = determinationsOf(r);
    const [a, b, own, refused] = r.items.map(of);
    expect([a?.headline, a?.coverageGaps, a?.provenance.map((p) => p.url)]).toEqual(["first", ["gap B", "gap C"], ["https://www.govinfo.gov/"]]);
    expect(b?.coverageGaps).toBe(a?.coverageGaps);
    expect(b?.provenance).toBe(a?.provenance);
    expect([Object.isFrozen(a?.coverageGaps), Object.isFrozen(a?.provenance), Object.isFrozen(a?.provenance[0])]).toEqual([true, true, true]);
    expect(own).toBe(r.items[2].determination);
    expect(refused).toBeUndefined();
    expect(r.items[0].determination?.coverageGaps).toEqual([]);
  });

  it("refuses an index past the table (a faulty service) rather than answer without the lists", () => {
    const r = res();
    r.items[1].sharedCoverageGaps = 2;
    const of = determinationsOf(r);
    expect(() => of(r.items[1])).toThrow("batch item 1 points at shared list 2 of 2");
  });
});
