// The gateway's decoder of service answers (packages/rpc/src/wire/shared-decode.ts): a large part
// whose bytes recur is decoded once and shared, frozen. Whatever it shares, every answer must be
// exactly what fromBinary gives for the same bytes.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { create, equals, fromBinary, toBinary, type DescMessage } from "@bufbuild/protobuf";
import { sharedPartsDecoder } from "@permits/rpc";
import { DetermineRequestSchema, DetermineResponseSchema, RequirementsResultSchema, RequirementSchema } from "@permits/proto/stormwater/v1/stormwater";
import { DetermineBatchRequestSchema, DetermineBatchResponseSchema } from "@permits/proto/nwp/v1/nwp";
import { createStormwaterService, loadDataset as loadStormwater } from "@permits/stormwater";
import { createNwpService, loadDataset as loadNwp } from "@permits/nwp";
import { batchOf100, SITES } from "../bench/requests.mjs";

const TODAY = () => "2026-11-24";
const stormwater = createStormwaterService(loadStormwater(), TODAY);
const nwp = createNwpService(loadNwp(), TODAY);
const ctx = {} as never;

/** Document 1's bench sites as the service's requests, with the acreage given. */
function siteRequest(i: number, acres?: number) {
  const { acres: given, dischargesToImpairedWater, ...site } = SITES[i % SITES.length] as Record<string, unknown>;
  return create(DetermineRequestSchema, { site: { ...site, disturbedAcres: acres ?? (given as number), ...(typeof dischargesToImpairedWater === "boolean" && { dischargesToImpairedWater }) } });
}

async function determination(i: number, acres?: number): Promise<Uint8Array> {
  return toBinary(DetermineResponseSchema, await stormwater.determine(siteRequest(i, acres), ctx));
}

function expectSameAsFromBinary<D extends DescMessage>(desc: D, decoded: unknown, bytes: Uint8Array) {
  expect(equals(desc, decoded as never, fromBinary(desc, bytes))).toBe(true);
  // Compared as buffers: toEqual walks a large Uint8Array element by element.
  expect(Buffer.compare(toBinary(desc, decoded as never), toBinary(desc, fromBinary(desc, bytes)))).toBe(0);
}

describe("sharedPartsDecoder", () => {
  it("answers every bench determination as fromBinary does, first time and every time after", async () => {
    const decode = sharedPartsDecoder();
    const answers = await Promise.all(SITES.map((_, i) => determination(i)));
    for (let round = 0; round < 3; round++) for (const bytes of answers) expectSameAsFromBinary(DetermineResponseSchema, decode(DetermineResponseSchema, bytes), bytes);
  });

  it("shares a recurring large part from its second sighting on, frozen all through", async () => {
    const decode = sharedPartsDecoder();
    const bytes = await determination(0); // NM: a CGP determination with its requirements
    const [first, second, third] = [1, 2, 3].map(() => decode(DetermineResponseSchema, bytes));
    const req = (r: typeof first) => r.determination!.requirements[0];
    expect(first.determination!.requirements.length).toBeGreaterThan(5);
    expect(req(first)).not.toBe(req(second));
    expect(Object.isFrozen(req(first))).toBe(false);
    expect(req(third)).toBe(req(second));
    expect(Object.isFrozen(req(third))).toBe(true);
    expect(Object.isFrozen(req(third).citation)).toBe(true);
    // The answer itself is the caller's own: never frozen, never shared.
    expect(third).not.toBe(second);
    expect(Object.isFrozen(third)).toBe(false);
  });

  it("shares the dataset's parts between answers to different sites (acreages never seen twice)", async () => {
    const decode = sharedPartsDecoder();
    const answers = await Promise.all([3, 3.5, 4, 4.5, 5].map((acres) => determination(0, acres)));
    const decoded = answers.map((b) => decode(DetermineResponseSchema, b));
    answers.forEach((b, i) => expectSameAsFromBinary(DetermineResponseSchema, decoded[i], b));
    const last = decoded.at(-1)!.determination!;
    expect(last.requirements.filter((r) => Object.isFrozen(r)).length).toBeGreaterThan(last.requirements.length / 2);
    expect(Object.isFrozen(last)).toBe(false);
  });

  it("never takes one part for another with the same length and the same sampled bytes", () => {
    const decode = sharedPartsDecoder();
    // 1,000 characters differing only at 300: the key's three windows (start, middle, end) are equal.
    const text = (c: string) => "a".repeat(300) + c + "a".repeat(699);
    const answer = (c: string) => toBinary(RequirementsResultSchema, create(RequirementsResultSchema, { requirements: [create(RequirementSchema, { id: "x", detail: text(c) })] }));
    const [a, b] = [answer("b"), answer("c")];
    expect(a.length).toBe(b.length);
    for (const bytes of [a, a, a, b, b, a, b]) {
      const r = decode(RequirementsResultSchema, bytes);
      expectSameAsFromBinary(RequirementsResultSchema, r, bytes);
    }
    expect(decode(RequirementsResultSchema, b).requirements[0].detail[300]).toBe("c");
    expect(decode(RequirementsResultSchema, a).requirements[0].detail[300]).toBe("b");
  });

  it("merges a singular message sent twice as protobuf does", async () => {
    const decode = sharedPartsDecoder();
    const [a, b] = await Promise.all([determination(0), determination(2)]);
    const twice = new Uint8Array([...a, ...b]); // determination appears twice: the second is merged in
    for (let i = 0; i < 3; i++) expectSameAsFromBinary(DetermineResponseSchema, decode(DetermineResponseSchema, twice), twice);
  });

  it("refuses bytes that are not the message, as fromBinary does", async () => {
    const decode = sharedPartsDecoder();
    const bytes = await determination(0);
    for (const bad of [bytes.subarray(0, bytes.length - 7), new Uint8Array([0x0a, 0xff, 0xff, 0x01, 0x00])]) {
      expect(() => fromBinary(DetermineResponseSchema, bad)).toThrow();
      expect(() => decode(DetermineResponseSchema, bad)).toThrow();
    }
  });

  it("answers batches of varied projects as fromBinary does, while it learns what recurs", async () => {
    const decode = sharedPartsDecoder();
    // Enough batches for every field's trial to end, so parts left to fromBinary are checked too.
    for (let k = 0; k < 90; k++) {
      const projects = batchOf100().projects.map((p, index) => ({ index, project: { ...p, permanentImpactAcres: p.permanentImpactAcres + (k % 30) * 0.001 } }));
      const bytes = toBinary(DetermineBatchResponseSchema, await nwp.determineBatch(create(DetermineBatchRequestSchema, { shareLists: k % 2 === 0, projects }), ctx));
      expectSameAsFromBinary(DetermineBatchResponseSchema, decode(DetermineBatchResponseSchema, bytes), bytes);
    }
  });

  it("answers any site as fromBinary does (property)", async () => {
    const decode = sharedPartsDecoder();
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: SITES.length - 1 }), fc.double({ min: 20, max: 500, noNaN: true }), async (i, acres) => {
        const bytes = await determination(i, acres);
        expectSameAsFromBinary(DetermineResponseSchema, decode(DetermineResponseSchema, bytes), bytes);
      }),
      { numRuns: 300, seed: 20261124 },
    );
  });
});
