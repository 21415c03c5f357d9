// A batch answer carries each distinct coverage-gap and provenance list once
// (DetermineBatchResponse.shared_coverage_gaps / shared_provenance in nwp.proto); the public JSON
// still gives every determination its own lists, as it always has. The shared lists are frozen
// once per answer, so public-json.ts writes each one once and splices its text into every item
// that points at it. The same code serves both deployments: decoded messages (distributed) and
// the service's own objects (embedded). Freezing the lists is the one change made to a response:
// nothing holds them but the response once the service has answered.
import type { BatchItem, Determination, DetermineBatchResponse } from "@permits/proto/nwp/v1/nwp";

/** For each item of `res`, its determination with its shared lists put back (undefined when it has none). */
export function determinationsOf(res: DetermineBatchResponse): (item: BatchItem) => Determination | undefined {
  const gaps = res.sharedCoverageGaps.map((l) => frozen(l.gaps));
  const provenance = res.sharedProvenance.map((l) => {
    for (const p of l.entries) Object.freeze(p);
    return frozen(l.entries);
  });
  return (item) => {
    const d = item.determination;
    if (d === undefined || (item.sharedCoverageGaps === undefined && item.sharedProvenance === undefined)) return d;
    // A copy: the item's own determination stays as it came.
    return {
      ...d,
      coverageGaps: item.sharedCoverageGaps === undefined ? d.coverageGaps : entry(gaps, item.sharedCoverageGaps, item),
      provenance: item.sharedProvenance === undefined ? d.provenance : entry(provenance, item.sharedProvenance, item),
    };
  };
}

function frozen<T extends object>(v: T): T {
  Object.freeze(v);
  return v;
}

function entry<T>(table: readonly T[], at: number, item: BatchItem): T {
  // Only a faulty nwp service points past its table: an internal error, never a partial answer.
  if (!(at >= 0 && at < table.length)) throw new Error(`batch item ${item.index} points at shared list ${at} of ${table.length}`);
  return table[at];
}
