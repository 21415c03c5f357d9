// A dataset as a flat index of its facts, for the changelog (GET /api/v1/changes, the snapshots
// in data/changelog) and the report of facts by age (npm run data:report). Pure: raw data in,
// index out. A fact is what tallyFacts counts: an object carrying `basis` and `confidence`. A bare
// citation whose owner is itself a fact (a jurisdiction row's authorityCitation) is that owner's
// source, not a second fact.
import type { BasisWord } from "./grounded.js";

/** One fact as a dataset version holds it. */
export interface FactRecord {
  /** What the fact concerns: a jurisdiction, a permit, an area, an NWP, the NWP ruleset. */
  group: { kind: string; id: string };
  /** The fields it states: its own, or those of the record it cites; null for a bare citation. */
  value: Record<string, unknown> | null;
  basis: BasisWord;
  confidence: "verified" | "unverified";
  /** The date its source was last read; null where no source was read. */
  checkedOn: string | null;
  sourceCitation?: string;
  sourceUrl?: string;
  quote?: string;
}

export type FactIndex = Record<string, FactRecord>;

/** Where a fact belongs, from its path in the dataset (file key first, then names and ids). */
export type GroupOf = (path: readonly string[]) => { kind: string; id: string };

/** A fact's source and research fields: everything that is not what it states. */
const SOURCE_KEYS = new Set(["basis", "confidence", "checkedOn", "sourceCitation", "sourceUrl", "quote", "provenance", "edition", "unchangedBy"]);

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const isFact = (o: Obj) => typeof o.basis === "string" && typeof o.confidence === "string";
const isScalar = (v: unknown) => v === null || ["string", "number", "boolean"].includes(typeof v);
/** A citation and nothing else: every key is a source key. */
const isBareCitation = (o: Obj) => isFact(o) && Object.keys(o).every((k) => SOURCE_KEYS.has(k));

/** The scalar fields (and lists of scalars) an object states, without its source fields. */
function statedFields(o: Obj): Record<string, unknown> | null {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (SOURCE_KEYS.has(k)) continue;
    // An empty list is left out: it may be an empty list of records, and a list that fills shows anyway.
    if (isScalar(v) || (Array.isArray(v) && v.length > 0 && v.every(isScalar))) out[k] = v;
  }
  return Object.keys(out).length > 0 ? out : null;
}

/** An array element's name in a path: its id, code or number where it has one (npm run data:verify finds a fact by it). */
export function elementKey(x: unknown, i: number): string {
  if (isObj(x)) for (const k of ["id", "code", "number"]) if (typeof x[k] === "string" || typeof x[k] === "number") return String(x[k]);
  return String(i);
}

function record(o: Obj, group: FactRecord["group"], value: FactRecord["value"], source: Obj): FactRecord {
  const r: FactRecord = {
    group,
    value,
    basis: o.basis as BasisWord,
    confidence: o.confidence as FactRecord["confidence"],
    checkedOn: (o.checkedOn ?? source.checkedOn ?? null) as string | null,
  };
  for (const k of ["sourceCitation", "sourceUrl", "quote"] as const) {
    const v = source[k] ?? o[k];
    if (typeof v === "string") r[k] = v;
  }
  return r;
}

const indexes = new WeakMap<object, FactIndex>();

/** factIndex once per loaded dataset (`owner`: its raw data): the read-out and the changelog share it. */
export function factIndexOnce(owner: object, files: () => Record<string, unknown>, groupOf: GroupOf): FactIndex {
  let index = indexes.get(owner);
  if (!index) indexes.set(owner, (index = factIndex(files(), groupOf)));
  return index;
}

/** Every fact of a dataset, keyed by its path ("jurisdictions/TX/statePermits/tx-txr150000/datesCitation"). */
export function factIndex(files: Record<string, unknown>, groupOf: GroupOf): FactIndex {
  const index: FactIndex = {};
  const walk = (node: unknown, path: string[], owner: Obj | undefined): void => {
    if (Array.isArray(node)) {
      node.forEach((x, i) => walk(x, [...path, elementKey(x, i)], owner));
      return;
    }
    if (!isObj(node)) return;
    if (isFact(node)) {
      if (isBareCitation(node) && owner && isFact(owner)) return; // the owner's source, recorded with it
      const cited = Object.values(node).find((v): v is Obj => isObj(v) && isBareCitation(v));
      const own = statedFields(node);
      const value = own ?? (isBareCitation(node) && owner && !isFact(owner) ? statedFields(owner) : null);
      index[path.join("/")] = record(node, groupOf(path), value, cited ?? {});
    }
    for (const [k, v] of Object.entries(node)) walk(v, [...path, k], node);
  };
  for (const [file, data] of Object.entries(files)) walk(data, [file], undefined);
  return index;
}

/** The latest checkedOn per group, over the facts that have one. */
export function lastCheckedByGroup(index: FactIndex): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of Object.values(index)) {
    if (!f.checkedOn) continue;
    const k = `${f.group.kind}/${f.group.id}`;
    const prev = out.get(k);
    if (!prev || f.checkedOn > prev) out.set(k, f.checkedOn);
  }
  return out;
}

/** The facts per date their source was last read, oldest first (undated last), each date's facts counted per group. */
export function factsByAge(index: FactIndex): { checkedOn: string | null; count: number; groups: { kind: string; id: string; count: number }[] }[] {
  const byDate = new Map<string | null, Map<string, { kind: string; id: string; count: number }>>();
  for (const f of Object.values(index)) {
    const groups = byDate.get(f.checkedOn) ?? byDate.set(f.checkedOn, new Map()).get(f.checkedOn)!;
    const k = `${f.group.kind}/${f.group.id}`;
    const g = groups.get(k) ?? groups.set(k, { ...f.group, count: 0 }).get(k)!;
    g.count++;
  }
  const dates = [...byDate.keys()].sort((a, b) => (a === null ? 1 : b === null ? -1 : a < b ? -1 : a > b ? 1 : 0));
  return dates.map((checkedOn) => {
    const groups = [...byDate.get(checkedOn)!.values()];
    return { checkedOn, count: groups.reduce((n, g) => n + g.count, 0), groups };
  });
}
