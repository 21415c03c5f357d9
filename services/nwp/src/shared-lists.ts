// The coverage-gap and provenance lists of one batch's determinations, each distinct list kept
// once (DetermineBatchResponse.shared_coverage_gaps / shared_provenance in nwp.proto). Projects of
// a batch mostly share a district, a state and a set of permits, so these lists repeat: in the
// benchmark's batch of 100, 19 distinct gap lists and 17 provenance lists make up ~60 % of the
// answer's bytes. Sent once, they are encoded, sent, decoded and written as JSON once per batch.
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { CoverageGapListSchema, ProvenanceListSchema, type CoverageGapList, type ProvenanceList } from "@permits/proto/nwp/v1/nwp";

type Entry = { readonly label: string; readonly url: string };
type EntriesInit = MessageInitShape<typeof ProvenanceListSchema>["entries"];

/**
 * Built per batch; lists are numbered in order of first use, so the same batch always gives the
 * same bytes. The engine builds new arrays (and some new strings) for every determination, so
 * lists are matched by value. Measured on the benchmark's batch: a key of each list's text
 * (JSON.stringify) cost ~1 ms per batch, more than deciding it; bucketing by the lengths of the
 * strings and comparing element by element costs next to nothing (most strings are the
 * dataset's own, equal by reference).
 */
export class SharedLists {
  private readonly gapLists = new ListTable<string, CoverageGapList>(GAP);
  private readonly provenanceLists = new ListTable<Entry, ProvenanceList>(ENTRY);

  get coverageGaps(): CoverageGapList[] {
    return this.gapLists.messages;
  }

  get provenance(): ProvenanceList[] {
    return this.provenanceLists.messages;
  }

  /** The index of this list of gaps in the table (added on first use). */
  gaps(gaps: readonly string[]): number {
    return this.gapLists.indexOf(gaps, () => create(CoverageGapListSchema, { gaps: gaps as string[] }));
  }

  /** The index of this provenance list in the table; `entries` builds its messages, only for a new list. */
  provenanceOf(list: readonly Entry[], entries: () => EntriesInit): number {
    return this.provenanceLists.indexOf(list, () => create(ProvenanceListSchema, { entries: entries() }));
  }
}

/** How list elements are told apart: a cheap size (for bucketing) and equality. */
interface Element<T> {
  size(x: T): number;
  same(a: T, b: T): boolean;
}

const GAP: Element<string> = { size: (s) => s.length, same: (a, b) => a === b };
const ENTRY: Element<Entry> = {
  size: (e) => e.label.length * 31 + e.url.length,
  same: (a, b) => a === b || (a.label === b.label && a.url === b.url),
};

/**
 * Distinct lists by value, each with its message: bucketed by a hash of their elements' sizes,
 * then compared. A batch holds at most 100 lists of each kind, so even one crowded bucket stays cheap.
 */
class ListTable<T, M> {
  readonly messages: M[] = [];
  private readonly lists: (readonly T[])[] = [];
  private readonly buckets = new Map<number, number[]>();

  constructor(private readonly element: Element<T>) {}

  indexOf(list: readonly T[], message: () => M): number {
    let h = list.length;
    for (let i = 0; i < list.length; i++) h = (Math.imul(h, 31) + this.element.size(list[i])) | 0;
    let bucket = this.buckets.get(h);
    if (bucket === undefined) this.buckets.set(h, (bucket = []));
    for (const at of bucket) if (this.equal(this.lists[at], list)) return at;
    this.lists.push(list);
    bucket.push(this.messages.push(message()) - 1);
    return this.messages.length - 1;
  }

  private equal(a: readonly T[], b: readonly T[]): boolean {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!this.element.same(a[i], b[i])) return false;
    return true;
  }
}
