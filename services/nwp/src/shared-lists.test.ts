// A batch answer carries each distinct coverage-gap list, provenance list, PCN, district layer and
// state layer once, and items point at them (DetermineBatchResponse.shared_*, BatchItem.shared_*):
// what goes on the wire.
import { describe, expect, it } from "vitest";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { DetermineBatchRequestSchema, DetermineBatchResponseSchema, DetermineRequestSchema, type Determination, type DetermineBatchResponse } from "@permits/proto/nwp/v1/nwp";
import { createNwpService } from "./service.js";
import type { PcnTriggerOut } from "./engine/index.js";
import { SharedLists } from "./shared-lists.js";
import { project, readLimitsDataset, TODAY } from "./testing.js";

const svc = createNwpService(readLimitsDataset(), () => TODAY); // eligible paths need limits that may relax
const ctx = {} as never; // the handlers do not use the context
const batch = (projects: Record<string, unknown>[], shareLists = true) => create(DetermineBatchRequestSchema, { projects: projects.map((p, index) => ({ index, project: p })), shareLists });
const determineBatch = (projects: Record<string, unknown>[], shareLists = true) => svc.determineBatch(batch(projects, shareLists), ctx) as DetermineBatchResponse;
const alone = (p: Record<string, unknown>) => (svc.determine(create(DetermineRequestSchema, { project: p }), ctx) as { determination: Determination }).determination;

const TX = project({ permanentImpactAcres: 0.1 }); // Fort Worth District, Texas
const TX2 = project({ permanentImpactAcres: 0.2 }); // the same lists, another acreage
const CA = project({ state: "CA", district: "SPK" });
const CA2 = project({ state: "CA", district: "SPK", permanentImpactAcres: 0.25 });
const TX_TEMPORARY = project({ permanentImpactAcres: 0.1, temporaryImpactAcres: 0.4 }); // one more gap, the same provenance
const UNKNOWN = project({ district: "XYZ" });
// NWP 14's PCN above 1/10 acre names the project's acreage; under it the PCN is not known.
const ROAD = project({ activity: "road-crossing", permanentImpactAcres: 0.2 });
const ROAD_LARGER = project({ activity: "road-crossing", permanentImpactAcres: 0.3 });
const ROAD_CA = project({ activity: "road-crossing", permanentImpactAcres: 0.2, state: "CA", district: "SPK" });
const ROAD_SMALL = project({ activity: "road-crossing", permanentImpactAcres: 0.05 });
const JURISDICTION = "This service does not decide whether the site contains waters of the United States; only a Corps district makes that jurisdictional determination.";

const occurrences = (bytes: Uint8Array, text: string) => Buffer.from(bytes).toString("utf8").split(text).length - 1;

describe("a batch's shared parts", () => {
  const projects = [TX, CA, TX2, CA2, TX_TEMPORARY, UNKNOWN];
  const res = determineBatch(projects);

  it("holds each distinct part once, in order of first use, and each item points at its own", () => {
    // [index, ok, gaps, provenance, pcn, district layer, state layer]
    expect(res.items.map((i) => [i.index, i.ok, i.sharedCoverageGaps, i.sharedProvenance, i.sharedPcn, i.sharedDistrictLayer, i.sharedStateLayer])).toEqual([
      [0, true, 0, 0, 0, 0, 0],
      [1, true, 1, 1, 0, 1, 1],
      [2, true, 0, 0, 0, 0, 0],
      [3, true, 1, 1, 0, 1, 1],
      [4, true, 2, 0, 0, 0, 0],
      [5, false, undefined, undefined, undefined, undefined, undefined],
    ]);
    expect(res.sharedCoverageGaps.map((l) => l.gaps.length)).toEqual([5, 6, 6]);
    expect(res.sharedProvenance.map((l) => l.entries.length)).toEqual([6, 7]);
    // Every project is residential development: NWP 29's PCN for every activity, whatever the acreage.
    expect(res.sharedPcn.map((p) => [p.required, p.triggers.map((t) => t.inputValue)])).toEqual([[true, ["any NWP 29 activity"]]]);
    expect(res.sharedDistrictLayers.map((l) => [l.code, l.name])).toEqual([["SWF", "Fort Worth"], ["SPK", "Sacramento"]]);
    expect(res.sharedStateLayers.map((l) => [l.code, l.certifier])).toEqual([["TX", "Not on record here"], ["CA", "California State Water Resources Control Board"]]);
    // The dataset's own layer messages, shared by every answer (an embedded gateway writes each once per process).
    expect(res.sharedDistrictLayers[0]).toBe(alone(TX).districtLayer);
    expect(res.sharedStateLayers[1]).toBe(alone(CA).stateLayer);
    const [tx, ca, txTemporary] = res.sharedCoverageGaps.map((l) => l.gaps);
    expect(tx[0]).toBe(JURISDICTION);
    expect(tx[1]).toBe("Regional conditions of the Fort Worth District (SWF) are not included here and were not applied; they can add PCN triggers, lower limits or suspend NWPs (https://www.swf.usace.army.mil/Missions/Regulatory/).");
    expect(ca[1]).toMatch(/^Regional conditions of the Sacramento District \(SPK\)/);
    expect(txTemporary).toEqual([...tx.slice(0, -1), "Temporary impacts (0.4 acres) are not screened against any limit; only permanent loss is compared.", tx.at(-1)]);
    expect(res.sharedProvenance.map((l) => l.entries.at(-1)?.url)).toEqual([
      "https://www.swf.usace.army.mil/Missions/Regulatory/",
      "https://www.waterboards.ca.gov/water_issues/programs/cwa401/nationwide-permits.html",
    ]);
  });

  it("are the parts each project's own determination has", () => {
    const batch = determineBatch([...projects, ROAD, ROAD_LARGER, ROAD_CA, ROAD_SMALL]);
    for (const [i, p] of [...projects, ROAD, ROAD_LARGER, ROAD_CA, ROAD_SMALL].entries()) {
      const item = batch.items[i];
      if (!item.ok) continue;
      const own = alone(p);
      expect(batch.sharedCoverageGaps[item.sharedCoverageGaps!].gaps).toEqual(own.coverageGaps);
      expect(batch.sharedProvenance[item.sharedProvenance!].entries).toEqual(own.provenance);
      expect(batch.sharedPcn[item.sharedPcn!]).toEqual(own.pcn);
      expect(batch.sharedDistrictLayers[item.sharedDistrictLayer!]).toEqual(own.districtLayer);
      expect(batch.sharedStateLayers[item.sharedStateLayer!]).toEqual(own.stateLayer);
    }
  });

  it("matches PCNs by value: one per distinct trigger set, whichever project built it", () => {
    const roads = determineBatch([ROAD, ROAD_LARGER, ROAD_CA, ROAD_SMALL, TX]);
    expect(roads.items.map((i) => [i.sharedPcn, i.sharedDistrictLayer, i.sharedStateLayer])).toEqual([[0, 0, 0], [1, 0, 0], [0, 1, 1], [2, 0, 0], [3, 0, 0]]);
    expect(roads.sharedPcn.map((p) => [p.required, p.reviewDays, p.triggers.map((t) => [t.permitNumber, t.inputValue])])).toEqual([
      [true, 45, [[14, "0.2 acres"]]],
      [true, 45, [[14, "0.3 acres"]]],
      [true, 45, []], // not ruled out: NWP 14's terms rest on a basis that may not relax
      [true, 45, [[29, "any NWP 29 activity"]]],
    ]);
  });

  it("leaves the items' determinations without their shared parts, and sends each list once on the wire", () => {
    const bytes = toBinary(DetermineBatchResponseSchema, res);
    const decoded = fromBinary(DetermineBatchResponseSchema, bytes);
    for (const item of decoded.items.filter((i) => i.ok)) {
      expect(item.determination?.coverageGaps).toEqual([]);
      expect(item.determination?.provenance).toEqual([]);
      expect([item.determination?.pcn, item.determination?.districtLayer, item.determination?.stateLayer]).toEqual([undefined, undefined, undefined]);
    }
    const pointers = (r: DetermineBatchResponse) => r.items.map((i) => [i.sharedCoverageGaps, i.sharedProvenance, i.sharedPcn, i.sharedDistrictLayer, i.sharedStateLayer]);
    expect(pointers(decoded)).toEqual(pointers(res));
    expect([decoded.sharedPcn.length, decoded.sharedDistrictLayers.length, decoded.sharedStateLayers.length]).toEqual([1, 2, 2]);
    // Five determinations, three distinct gap lists: the first gap is sent three times, not five.
    expect(occurrences(bytes, JURISDICTION)).toBe(3);
  });

  it("gives the same bytes for the same batch, and numbers lists by first use", () => {
    expect(Buffer.from(toBinary(DetermineBatchResponseSchema, determineBatch(projects)))).toEqual(Buffer.from(toBinary(DetermineBatchResponseSchema, res)));
    const reversed = determineBatch([CA, TX, CA2]);
    expect(reversed.items.map((i) => [i.sharedCoverageGaps, i.sharedProvenance, i.sharedDistrictLayer, i.sharedStateLayer])).toEqual([[0, 0, 0, 0], [1, 1, 1, 1], [0, 0, 0, 0]]);
    expect(reversed.sharedDistrictLayers.map((l) => l.code)).toEqual(["SPK", "SWF"]);
    expect(reversed.sharedCoverageGaps.map((l) => l.gaps)).toEqual([res.sharedCoverageGaps[1].gaps, res.sharedCoverageGaps[0].gaps]);
  });

  it("are only for a caller that asks: otherwise each determination carries its own parts", () => {
    const own = determineBatch(projects, false);
    expect([own.sharedCoverageGaps, own.sharedProvenance, own.sharedPcn, own.sharedDistrictLayers, own.sharedStateLayers]).toEqual([[], [], [], [], []]);
    for (const [i, item] of own.items.entries()) {
      expect([item.sharedCoverageGaps, item.sharedProvenance, item.sharedPcn, item.sharedDistrictLayer, item.sharedStateLayer]).toEqual([undefined, undefined, undefined, undefined, undefined]);
      if (!item.ok) continue;
      const { coverageGaps, provenance, pcn, districtLayer, stateLayer } = alone(projects[i]);
      expect(item.determination).toMatchObject({ coverageGaps, provenance, pcn, districtLayer, stateLayer });
    }
    expect(occurrences(toBinary(DetermineBatchResponseSchema, own), JURISDICTION)).toBe(5);
  });

  it("a batch with no valid project has empty tables", () => {
    const none = determineBatch([UNKNOWN]);
    expect([none.sharedCoverageGaps, none.sharedProvenance, none.sharedPcn, none.sharedDistrictLayers, none.sharedStateLayers]).toEqual([[], [], [], [], []]);
  });
});

describe("SharedLists", () => {
  it("matches lists by value, never lists that only have the same sizes", () => {
    const lists = new SharedLists();
    const built = (a: string, b: string) => [a, b].join(""); // a string instance of its own
    expect(lists.gaps(["ab", "cd"])).toBe(0);
    expect(lists.gaps(["ab", "ce"])).toBe(1); // same lengths, another text
    expect(lists.gaps([built("a", "b"), built("c", "d")])).toBe(0);
    expect(lists.gaps(["ab"])).toBe(2);
    expect(lists.gaps([])).toBe(3);
    expect(lists.coverageGaps.map((l) => l.gaps)).toEqual([["ab", "cd"], ["ab", "ce"], ["ab"], []]);
    const entries = (l: { label: string; url: string }[]) => () => l;
    const a = [{ label: "A", url: "https://a.gov/" }];
    expect(lists.provenanceOf(a, entries(a))).toBe(0);
    expect(lists.provenanceOf([{ label: "A", url: "https://b.gov/" }], entries([{ label: "A", url: "https://b.gov/" }]))).toBe(1);
    expect(lists.provenanceOf([{ label: "B", url: "https://a.gov/" }], entries([{ label: "B", url: "https://a.gov/" }]))).toBe(2);
    expect(lists.provenanceOf([{ label: "A", url: "https://a.gov/" }], () => { throw new Error("built again"); })).toBe(0);
    expect(lists.provenance.map((l) => l.entries.map((e) => e.url))).toEqual([["https://a.gov/"], ["https://b.gov/"], ["https://a.gov/"]]);
  });

  it("matches PCNs and layers by value, field by field, building each message once", () => {
    const lists = new SharedLists();
    const trigger = (over: Partial<PcnTriggerOut> = {}): PcnTriggerOut => ({ permitNumber: 14, threshold: "permanent loss above 0.1 acres", inputValue: "0.2 acres", sourceUrl: "https://www.federalregister.gov/", confidence: "unverified", basis: "unsourced", ...over });
    const pcn = (required: boolean, ...triggers: PcnTriggerOut[]) => ({ required, reviewDays: 45, triggers, because: required ? "a notification threshold is crossed" : "none is crossed" });
    const init = (p: ReturnType<typeof pcn>) => () => ({ required: p.required, reviewDays: p.reviewDays, triggers: p.triggers.map((t) => ({ permitNumber: t.permitNumber, inputValue: t.inputValue })), because: p.because });
    const once = () => { throw new Error("built again"); };
    const first = pcn(true, trigger());
    expect(lists.pcnOf(first, init(first))).toBe(0);
    expect(lists.pcnOf(pcn(true, trigger({ inputValue: ["0.2", "acres"].join(" ") })), once)).toBe(0); // equal text, another string
    const others = [pcn(true, trigger({ inputValue: "0.3 acres" })), pcn(true, trigger({ sourceUrl: "https://www.govinfo.gov/" })), pcn(true, trigger({ basis: "secondary" })), pcn(true, trigger(), trigger()), { ...pcn(true), because: "no candidate was confirmed" }, pcn(false)];
    expect(others.map((p) => lists.pcnOf(p, init(p)))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(lists.pcnOf({ ...pcn(true), because: ["no candidate", "was confirmed"].join(" ") }, once)).toBe(5); // the same reason, another string
    expect(lists.pcn.map((p) => [p.required, p.triggers.map((t) => t.inputValue)])).toEqual([
      [true, ["0.2 acres"]], [true, ["0.3 acres"]], [true, ["0.2 acres"]], [true, ["0.2 acres"]], [true, ["0.2 acres", "0.2 acres"]], [true, []], [false, []],
    ]);

    const swf = { code: "SWF", conditionsCompiled: false, name: "Fort Worth", url: "https://www.swf.usace.army.mil/" };
    const layer = <T,>(l: T) => () => l;
    expect(lists.districtLayerOf(swf, layer(swf))).toBe(0);
    expect(lists.districtLayerOf({ ...swf }, once)).toBe(0);
    expect(lists.districtLayerOf({ ...swf, name: "Fort Worth District" }, layer({ ...swf, name: "Fort Worth District" }))).toBe(1); // same code, another layer
    expect(lists.districtLayers[0]).toBe(swf); // kept as given: the dataset's shared message
    const tx = { code: "TX", certificationCompiled: false, certifier: "Not on record here" };
    expect(lists.stateLayerOf(tx, layer(tx))).toBe(0);
    expect(lists.stateLayerOf({ ...tx, certificationCompiled: true }, layer({ ...tx, certificationCompiled: true }))).toBe(1);
    expect(lists.stateLayerOf({ ...tx }, once)).toBe(0);
  });
});
