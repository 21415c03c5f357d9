// A batch answer crosses from the nwp service with each distinct coverage-gap list, provenance
// list, PCN, district layer and state layer once (nwp.proto DetermineBatchResponse.shared_*); the
// gateway puts them back into every item.
// The public answer must not show it: a gateway calling a remote nwp service (real HTTP/2 and
// protobuf between them) writes the same bytes as the embedded one, and each batch item is the
// determination POST /api/v1/determine/nwp gives for that project alone.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Interceptor } from "@connectrpc/connect";
import { createLogger, ManualClock } from "@permits/runtime";
import { serve, type RunningService } from "@permits/rpc";
import { build } from "@permits/nwp";
import { SubscriptionStatus } from "@permits/proto/entitlement/v1/entitlement";
import { create, toBinary } from "@bufbuild/protobuf";
import { DetermineBatchRequestSchema, DetermineBatchResponseSchema, type DetermineBatchResponse } from "@permits/proto/nwp/v1/nwp";
import { determinationsOf } from "@permits/gateway";
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

let built: Awaited<ReturnType<typeof build>>;
let nwp: RunningService;
let embedded: Embedded;
let remote: Embedded;
const wire: DetermineBatchResponse[] = [];
const keys = new Map<Embedded, string>();

beforeAll(async () => {
  built = await build({ env: { EVALUATION_DATE }, logger, clock });
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

describe("a batch answer with shared parts", () => {
  it("is sent with each distinct part once", async () => {
    wire.length = 0;
    const answer = await post(remote, "/api/v1/determine/batch", body, "wire-1");
    expect(answer.statusCode).toBe(200);
    expect(wire).toHaveLength(1);
    const [res] = wire;
    // The gateway refuses the malformed number itself; the service refuses the unknown values.
    expect(res.items.filter((i) => !i.ok).map((i) => i.index)).toEqual([3, 98]);
    const tables = [res.sharedCoverageGaps, res.sharedProvenance, res.sharedPcn, res.sharedDistrictLayers, res.sharedStateLayers].map((t) => t.length);
    expect([res.items.length, ...tables]).toEqual([99, 16, 17, 1, 15, 15]); // no candidate is admitted on today's data, so every PCN is the same unknown
    // As many as the public answer has distinct parts.
    type Part = "coverageGaps" | "provenance" | "pcn" | "districtLayer" | "stateLayer";
    const determinations = (answer.json().data as { determination?: Record<Part, unknown> }[]).flatMap((i) => i.determination ?? []);
    expect(determinations).toHaveLength(97);
    const distinct = (part: Part) => new Set(determinations.map((d) => JSON.stringify(d[part]))).size;
    expect((["coverageGaps", "provenance", "pcn", "districtLayer", "stateLayer"] as const).map(distinct)).toEqual(tables);
    for (const item of res.items.filter((i) => i.ok)) {
      const d = item.determination!;
      expect([d.coverageGaps, d.provenance, d.pcn, d.districtLayer, d.stateLayer]).toEqual([[], [], undefined, undefined, undefined]);
      const pointers = [item.sharedCoverageGaps, item.sharedProvenance, item.sharedPcn, item.sharedDistrictLayer, item.sharedStateLayer];
      expect(pointers.every((at, t) => at !== undefined && at >= 0 && at < tables[t])).toBe(true);
    }
  });

  it("of the benchmark's batch of 100 is 178,589 protobuf bytes (399,790 with every part in every item)", async () => {
    // Moves with the dataset: docs/performance.md quotes these figures.
    const answer = async (shareLists: boolean) => {
      const req = create(DetermineBatchRequestSchema, { projects: batchOf100().projects.map((project: object, index: number) => ({ index, project })), shareLists });
      return (await built.impl.determineBatch(req, {} as never)) as DetermineBatchResponse;
    };
    const [shared, whole] = [await answer(true), await answer(false)];
    expect([shared, whole].map((r) => toBinary(DetermineBatchResponseSchema, r).length)).toEqual([178589, 399790]);
    expect([shared.sharedCoverageGaps, shared.sharedProvenance, shared.sharedPcn, shared.sharedDistrictLayers, shared.sharedStateLayers].map((t) => t.length)).toEqual([17, 17, 1, 15, 15]);
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

describe("determinationsOf (the gateway putting shared parts back)", () => {
  const parts = { sharedCoverageGaps: 1, sharedProvenance: 0, sharedPcn: 0, sharedDistrictLayer: 1, sharedStateLayer: 0 };
  const res = () =>
    create(DetermineBatchResponseSchema, {
      sharedCoverageGaps: [{ gaps: ["gap A"] }, { gaps: ["gap B", "gap C"] }],
      sharedProvenance: [{ entries: [{ label: "Rule", url: "https://www.govinfo.gov/" }] }],
      sharedPcn: [{ required: true, reviewDays: 45, triggers: [{ permitNumber: 14, inputValue: "0.2 acres" }] }],
      sharedDistrictLayers: [{ code: "SWF" }, { code: "SPK" }],
      sharedStateLayers: [{ code: "CA" }],
      items: [
        { index: 0, ok: true, determination: { headline: "first" }, ...parts },
        { index: 1, ok: true, determination: { headline: "second" }, ...parts },
        { index: 2, ok: true, determination: { headline: "own lists", coverageGaps: ["own gap"] } },
        { index: 3, ok: false },
      ],
    });

  it("gives every item pointing at a part that same frozen part (public-json.ts writes it once), leaving the response's determinations as they were", () => {
    const r = res();
    const of = determinationsOf(r);
    const [a, b, own, refused] = r.items.map(of);
    expect([a?.headline, a?.coverageGaps, a?.provenance.map((p) => p.url)]).toEqual(["first", ["gap B", "gap C"], ["https://www.govinfo.gov/"]]);
    expect([a?.pcn?.triggers.map((t) => t.inputValue), a?.districtLayer?.code, a?.stateLayer?.code]).toEqual([["0.2 acres"], "SPK", "CA"]);
    for (const part of ["coverageGaps", "provenance", "pcn", "districtLayer", "stateLayer"] as const) {
      expect(b?.[part]).toBe(a?.[part]);
      expect(Object.isFrozen(a?.[part])).toBe(true);
    }
    expect(Object.isFrozen(a?.provenance[0])).toBe(true);
    // Laid out like a whole determination (the fields in the descriptor's order), not with the parts appended.
    expect(Object.keys(a!)).toEqual(["$typeName", "verdict", "headline", "candidates", "pcn", "districtLayer", "stateLayer", "coverageGaps", "provenance", "confidence"]);
    expect(own).toBe(r.items[2].determination);
    expect(refused).toBeUndefined();
    expect(r.items[0].determination?.coverageGaps).toEqual([]);
    expect(r.items[0].determination?.pcn).toBeUndefined();
  });

  it("refuses an index past a table (a faulty service) rather than answer without the part", () => {
    const r = res();
    r.items[1].sharedCoverageGaps = 2;
    r.items[0].sharedStateLayer = 1;
    r.items[2].sharedPcn = -1;
    const of = determinationsOf(r);
    expect(() => of(r.items[1])).toThrow("batch item 1 points at shared_coverage_gaps[2] of 2");
    expect(() => of(r.items[0])).toThrow("batch item 0 points at shared_state_layers[1] of 1");
    expect(() => of(r.items[2])).toThrow("batch item 2 points at shared_pcn[-1] of 1");
  });
});
