// A batch answer carries each distinct coverage-gap list, provenance list, PCN, district layer and
// state layer once (DetermineBatchResponse.shared_* in nwp.proto); the public JSON still gives
// every determination its own, as it always has. The shared parts are frozen once per answer, so
// public-json.ts writes each one once and splices its text into every item that points at it.
// The same code serves both deployments: decoded messages (distributed) and the service's own
// objects (embedded). Freezing the parts is the one change made to a response: nothing holds
// them but the response once the service has answered (the embedded layers are the dataset's
// messages, frozen already).
import { DeterminationSchema, type BatchItem, type Determination, type DetermineBatchResponse } from "@permits/proto/nwp/v1/nwp";

// Every field of a determination, in the descriptor's order. A determination sent without its
// shared parts lacks those properties, so a plain spread would append them after the others; a
// copy laid out like a whole determination is written as JSON ~0.3 ms per batch faster (the
// benchmark's batch, measured: public-json.ts reads each field by name).
const LAYOUT = Object.fromEntries([["$typeName", undefined], ...DeterminationSchema.fields.map((f) => [f.localName, undefined])]);

/** For each item of `res`, its determination with its shared parts put back (as it came when it has none). */
export function determinationsOf(res: DetermineBatchResponse): (item: BatchItem) => Determination | undefined {
  const gaps = res.sharedCoverageGaps.map((l) => frozen(l.gaps));
  const provenance = res.sharedProvenance.map((l) => {
    for (const p of l.entries) Object.freeze(p);
    return frozen(l.entries);
  });
  // A PCN's text is kept whole: freezing its triggers as well would only keep their texts too, unused.
  const pcn = res.sharedPcn.map(frozen);
  const districtLayers = res.sharedDistrictLayers.map(frozen);
  const stateLayers = res.sharedStateLayers.map(frozen);
  return (item) => {
    const d = item.determination;
    if (d === undefined || !sharesAny(item)) return d;
    // A copy: the item's own determination stays as it came.
    return {
      ...LAYOUT,
      ...d,
      pcn: part(pcn, "shared_pcn", item.sharedPcn, d.pcn, item),
      districtLayer: part(districtLayers, "shared_district_layers", item.sharedDistrictLayer, d.districtLayer, item),
      stateLayer: part(stateLayers, "shared_state_layers", item.sharedStateLayer, d.stateLayer, item),
      coverageGaps: part(gaps, "shared_coverage_gaps", item.sharedCoverageGaps, d.coverageGaps, item),
      provenance: part(provenance, "shared_provenance", item.sharedProvenance, d.provenance, item),
    };
  };
}

function sharesAny(item: BatchItem): boolean {
  return item.sharedPcn !== undefined || item.sharedDistrictLayer !== undefined || item.sharedStateLayer !== undefined
    || item.sharedCoverageGaps !== undefined || item.sharedProvenance !== undefined;
}

function frozen<T extends object>(v: T): T {
  Object.freeze(v);
  return v;
}

/** The item's own part when it points at none; else the shared one (`name`: the table's proto field). */
function part<T>(table: readonly T[], name: string, at: number | undefined, own: T, item: BatchItem): T {
  if (at === undefined) return own;
  // Only a faulty nwp service points past its table: an internal error, never a partial answer.
  if (!(at >= 0 && at < table.length)) throw new Error(`batch item ${item.index} points at ${name}[${at}] of ${table.length}`);
  return table[at];
}
