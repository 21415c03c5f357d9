// The parts of one batch's determinations that repeat, each distinct one kept once: coverage-gap
// and provenance lists, PCNs, district and state layers (DetermineBatchResponse.shared_* in
// nwp.proto, asked for with share_lists). Projects of a batch mostly share a district, a state
// and a set of permits, so these parts repeat: in the benchmark's batch of 100, 19 distinct gap
// lists and 17 provenance lists made up ~60 % of the answer's bytes, and 16 distinct PCNs, 15
// district and 15 state layers another ~16 % when each item carried its own. Sent once, they are
// encoded, sent, decoded and written as JSON once per batch.
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import {
  CoverageGapListSchema, PcnSchema, ProvenanceListSchema,
  type CoverageGapList, type DistrictLayerSchema, type Pcn, type ProvenanceList, type StateLayerSchema,
} from "@permits/proto/nwp/v1/nwp";
import type { DeterminationOut, PcnTriggerOut } from "./engine/index.js";

type Entry = DeterminationOut["provenance"][number];
type PcnOut = DeterminationOut["pcn"];
type DistrictLayerOut = DeterminationOut["districtLayer"];
type StateLayerOut = DeterminationOut["stateLayer"];
type EntriesInit = MessageInitShape<typeof ProvenanceListSchema>["entries"];
type PcnInit = MessageInitShape<typeof PcnSchema>;
type DistrictLayerInit = MessageInitShape<typeof DistrictLayerSchema>;
type StateLayerInit = MessageInitShape<typeof StateLayerSchema>;

/**
 * Built per batch; parts are numbered in order of first use, so the same batch always gives the
 * same bytes. The engine builds new arrays (and some new strings) for every determination, so
 * parts are matched by value. Measured on the benchmark's batch: a key of each list's text
 * (JSON.stringify) cost ~1 ms per batch, more than deciding it; bucketing by a few numbers (the
 * lengths of the strings) and comparing field by field costs next to nothing (most strings are
 * the dataset's own, equal by reference).
 */
export class SharedLists {
  private readonly gapLists = new Table<readonly string[], CoverageGapList>(listOf(GAP));
  private readonly provenanceLists = new Table<readonly Entry[], ProvenanceList>(listOf(ENTRY));
  private readonly pcns = new Table<PcnOut, Pcn>(PCN);
  private readonly districtLayerTable = new Table<DistrictLayerOut, DistrictLayerInit>(DISTRICT_LAYER);
  private readonly stateLayerTable = new Table<StateLayerOut, StateLayerInit>(STATE_LAYER);

  get coverageGaps(): CoverageGapList[] {
    return this.gapLists.messages;
  }

  get provenance(): ProvenanceList[] {
    return this.provenanceLists.messages;
  }

  get pcn(): Pcn[] {
    return this.pcns.messages;
  }

  get districtLayers(): DistrictLayerInit[] {
    return this.districtLayerTable.messages;
  }

  get stateLayers(): StateLayerInit[] {
    return this.stateLayerTable.messages;
  }

  /** The index of this list of gaps in the table (added on first use). */
  gaps(gaps: readonly string[]): number {
    return this.gapLists.indexOf(gaps, () => create(CoverageGapListSchema, { gaps: gaps as string[] }));
  }

  /** The index of this provenance list in the table; `entries` builds its messages, only for a new list. */
  provenanceOf(list: readonly Entry[], entries: () => EntriesInit): number {
    return this.provenanceLists.indexOf(list, () => create(ProvenanceListSchema, { entries: entries() }));
  }

  /** The index of this PCN in the table; `init` builds its message, only for a new one. */
  pcnOf(pcn: PcnOut, init: () => PcnInit): number {
    return this.pcns.indexOf(pcn, () => create(PcnSchema, init()));
  }

  /**
   * The index of this district layer in the table; `message` gives its message, only for a new
   * one. Kept as given: the dataset's layers are frozen messages shared by every answer, which
   * an embedded gateway writes as JSON once per process.
   */
  districtLayerOf(layer: DistrictLayerOut, message: () => DistrictLayerInit): number {
    return this.districtLayerTable.indexOf(layer, message);
  }

  /** The index of this state layer in the table, as districtLayerOf. */
  stateLayerOf(layer: StateLayerOut, message: () => StateLayerInit): number {
    return this.stateLayerTable.indexOf(layer, message);
  }
}

/** How values of one kind are told apart: a cheap key (for bucketing) and equality. */
interface Kind<V> {
  key(v: V): number | string;
  same(a: V, b: V): boolean;
}

/** How list elements are told apart: a cheap size (for a list's key) and equality. */
interface Element<T> {
  size(x: T): number;
  same(a: T, b: T): boolean;
}

/**
 * Equality on every field of T, with identity first: the record names them all, so a field added
 * to the engine's output is compared too (or the record fails to compile).
 */
function sameFields<T extends object>(fields: Record<keyof T, true>): (a: T, b: T) => boolean {
  const keys = Object.keys(fields) as (keyof T)[];
  return (a, b) => {
    if (a === b) return true;
    for (const k of keys) if (a[k] !== b[k]) return false;
    return true;
  };
}

function hashOf<T>(list: readonly T[], element: Element<T>, seed: number): number {
  let h = seed;
  for (let i = 0; i < list.length; i++) h = (Math.imul(h, 31) + element.size(list[i])) | 0;
  return h;
}

function sameList<T>(a: readonly T[], b: readonly T[], element: Element<T>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!element.same(a[i], b[i])) return false;
  return true;
}

function listOf<T>(element: Element<T>): Kind<readonly T[]> {
  return { key: (list) => hashOf(list, element, list.length), same: (a, b) => sameList(a, b, element) };
}

const GAP: Element<string> = { size: (s) => s.length, same: (a, b) => a === b };
const ENTRY: Element<Entry> = {
  size: (e) => e.label.length * 31 + e.url.length,
  same: sameFields<Entry>({ label: true, url: true }),
};
// Thresholds and input values are built per determination ("0.15 acres"): equal by text.
const TRIGGER: Element<PcnTriggerOut> = {
  size: (t) => (t.permitNumber * 31 + t.threshold.length) * 31 + t.inputValue.length,
  same: sameFields<PcnTriggerOut>({ permitNumber: true, threshold: true, inputValue: true, sourceUrl: true, confidence: true, basis: true, checkedOn: true }),
};
const PCN: Kind<PcnOut> = {
  key: (p) => hashOf(p.triggers, TRIGGER, Number(p.required) * 1009 + p.reviewDays + p.because.length * 7),
  same: (a, b) => a.required === b.required && a.reviewDays === b.reviewDays && a.because === b.because && sameList(a.triggers, b.triggers, TRIGGER),
};
// Layers are the dataset's own objects, one per district or state: keyed by code.
const DISTRICT_LAYER: Kind<DistrictLayerOut> = {
  key: (l) => l.code,
  same: sameFields<DistrictLayerOut>({ code: true, conditionsCompiled: true, name: true, url: true }),
};
const STATE_LAYER: Kind<StateLayerOut> = {
  key: (l) => l.code,
  same: sameFields<StateLayerOut>({ code: true, certificationCompiled: true, certifier: true }),
};

/**
 * Distinct values of one kind by value, each with its message: bucketed by their key, then
 * compared. A batch holds at most 100 values of each kind, so even one crowded bucket stays cheap.
 */
class Table<V, M> {
  readonly messages: M[] = [];
  private readonly values: V[] = [];
  private readonly buckets = new Map<number | string, number[]>();

  constructor(private readonly kind: Kind<V>) {}

  indexOf(value: V, message: () => M): number {
    const key = this.kind.key(value);
    let bucket = this.buckets.get(key);
    if (bucket === undefined) this.buckets.set(key, (bucket = []));
    for (const at of bucket) if (this.kind.same(this.values[at], value)) return at;
    this.values.push(value);
    bucket.push(this.messages.push(message()) - 1);
    return this.messages.length - 1;
  }
}
