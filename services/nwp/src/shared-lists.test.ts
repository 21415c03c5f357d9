// A batch answer carries each distinct coverage-gap and provenance list once, and items point at
// them (DetermineBatchResponse.shared_*, BatchItem.shared_*): what goes on the wire.
import { describe, expect, it } from "vitest";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { DetermineBatchRequestSchema, DetermineBatchResponseSchema, DetermineRequestSchema, type DetermineBatchResponse } from "@permits/proto/nwp/v1/nwp";
import { createNwpService } from "./service.js";
import { SharedLists } from "./shared-lists.js";
import { project, realDataset, TODAY } from "./test-support.js";

const svc = createNwpService(realDataset(), () => TODAY);
const ctx = {} as never; // the handlers do not use the context
const batch = (projects: Record<string, unknown>[], shareLists = true) => create(DetermineBatchRequestSchema, { projects: projects.map((p, index) => ({ index, project: p })), shareLists });
const determineBatch = (projects: Record<string, unknown>[], shareLists = true) => svc.determineBatch(batch(projects, shareLists), ctx) as DetermineBatchResponse;
const alone = (p: Record<string, unknown>) => (svc.determine(create(DetermineRequestSchema, { project: p }), ctx) as { determination: { coverageGaps: string[]; provenance: { label: string; url: string }[] } }).determination;

const TX = project({ permanentImpactAcres: 0.1 }); // Fort Worth District, Texas
const TX2 = project({ permanentImpactAcres: 0.2 }); // the same lists, another acreage
const CA = project({ state: "CA", district: "SPK" });
const CA2 = project({ state: "CA", district: "SPK", permanentImpactAcres: 0.25 });
const TX_TEMPORARY = project({ permanentImpactAcres: 0.1, temporaryImpactAcres: 0.4 }); // one more gap, the same provenance
const UNKNOWN = project({ district: "XYZ" });
const JURISDICTION = "This service does not decide whether the site contains waters of the United States; only a Corps district makes that jurisdictional determination.";

const occurrences = (bytes: Uint8Array, text: string) => Buffer.from(bytes).toString("utf8").split(text).length - 1;

describe("a batch's shared lists", () => {
  const projects = [TX, CA, TX2, CA2, TX_TEMPORARY, UNKNOWN];
  const res = determineBatch(projects);

  it("holds each distinct list once, in order of first use, and each item points at its own", () => {
    expect(res.items.map((i) => [i.index, i.ok, i.sharedCoverageGaps, i.sharedProvenance])).toEqual([
      [0, true, 0, 0],
      [1, true, 1, 1],
      [2, true, 0, 0],
      [3, true, 1, 1],
      [4, true, 2, 0],
      [5, false, undefined, undefined],
    ]);
    expect(res.sharedCoverageGaps.map((l) => l.gaps.length)).toEqual([5, 6, 6]);
    expect(res.sharedProvenance.map((l) => l.entries.length)).toEqual([6, 7]);
    const [tx, ca, txTemporary] = res.sharedCoverageGaps.map((l) => l.gaps);
    expect(tx[0]).toBe(JURISDICTION);
    expect(tx[1]).toBe("Regional conditions of the Fort Worth District (SWF) are not compiled and were not applied; they can add PCN triggers, lower limits or suspend NWPs (https://www.swf.usace.army.mil/Missions/Regulatory/).");
    expect(ca[1]).toMatch(/^Regional conditions of the Sacramento District \(SPK\)/);
    expect(txTemporary).toEqual([...tx.slice(0, -1), "Temporary impacts (0.4 acres) are not screened against any limit; only permanent loss is compared.", tx.at(-1)]);
    expect(res.sharedProvenance.map((l) => l.entries.at(-1)?.url)).toEqual([
      "https://www.swf.usace.army.mil/Missions/Regulatory/",
      "https://www.waterboards.ca.gov/water_issues/programs/cwa401/nationwide-permits.html",
    ]);
  });

  it("are the lists each project's own determination has", () => {
    for (const [i, p] of projects.entries()) {
      const item = res.items[i];
      if (!item.ok) continue;
      const own = alone(p);
      expect(res.sharedCoverageGaps[item.sharedCoverageGaps!].gaps).toEqual(own.coverageGaps);
      expect(res.sharedProvenance[item.sharedProvenance!].entries.map(({ label, url }) => ({ label, url }))).toEqual(own.provenance.map(({ label, url }) => ({ label, url })));
    }
  });

  it("leaves the items' determinations without lists, and sends each list once on the wire", () => {
    const bytes = toBinary(DetermineBatchResponseSchema, res);
    const decoded = fromBinary(DetermineBatchResponseSchema, bytes);
    for (const item of decoded.items.filter((i) => i.ok)) {
      expect(item.determination?.coverageGaps).toEqual([]);
      expect(item.determination?.provenance).toEqual([]);
    }
    expect(decoded.items.map((i) => [i.sharedCoverageGaps, i.sharedProvenance])).toEqual(res.items.map((i) => [i.sharedCoverageGaps, i.sharedProvenance]));
    // Five determinations, three distinct gap lists: the first gap is sent three times, not five.
    expect(occurrences(bytes, JURISDICTION)).toBe(3);
  });

  it("gives the same bytes for the same batch, and numbers lists by first use", () => {
    expect(Buffer.from(toBinary(DetermineBatchResponseSchema, determineBatch(projects)))).toEqual(Buffer.from(toBinary(DetermineBatchResponseSchema, res)));
    const reversed = determineBatch([CA, TX, CA2]);
    expect(reversed.items.map((i) => [i.sharedCoverageGaps, i.sharedProvenance])).toEqual([[0, 0], [1, 1], [0, 0]]);
    expect(reversed.sharedCoverageGaps.map((l) => l.gaps)).toEqual([res.sharedCoverageGaps[1].gaps, res.sharedCoverageGaps[0].gaps]);
  });

  it("are only for a caller that asks: otherwise each determination carries its own lists", () => {
    const own = determineBatch(projects, false);
    expect([own.sharedCoverageGaps, own.sharedProvenance]).toEqual([[], []]);
    for (const [i, item] of own.items.entries()) {
      expect([item.sharedCoverageGaps, item.sharedProvenance]).toEqual([undefined, undefined]);
      if (!item.ok) continue;
      expect(item.determination?.coverageGaps).toEqual(alone(projects[i]).coverageGaps);
      expect(item.determination?.provenance.map((p) => p.url)).toEqual(alone(projects[i]).provenance.map((p) => p.url));
    }
    expect(occurrences(toBinary(DetermineBatchResponseSchema, own), JURISDICTION)).toBe(5);
  });

  it("a batch with no valid project has empty tables", () => {
    const none = determineBatch([UNKNOWN]);
    expect([none.sharedCoverageGaps, none.sharedProvenance]).toEqual([[], []]);
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
});
