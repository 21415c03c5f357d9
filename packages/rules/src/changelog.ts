// The changelog of a dataset (GET /api/v1/changes): every released version's fact index is a
// committed snapshot in data/changelog/<dataset>/<datasetVersion>.json (npm run data:release
// writes it), each naming the version before it. At start a service reads the chain, adds the
// data it loaded as the newest version when that has no snapshot yet, diffs each version against
// the one before, and builds every possible answer once: a request is one map lookup.
import fs from "node:fs";
import path from "node:path";
import { create, fromJson, type JsonValue } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import {
  Confidence,
  DatasetReleaseSchema,
  FactChangeGroupSchema,
  FactChangeKind,
  FactChangeSchema,
  FactChangesSchema,
  FactStateSchema,
  type FactChange,
  type FactChanges,
  type FactState,
} from "@permits/proto/common/v1/common";
import { BASIS_WORDS, basisOf } from "./basis.js";
import { dataDir } from "./data-dir.js";
import { invalidArgument, ViolationReason } from "./errors.js";
import type { FactIndex, FactRecord } from "./fact-index.js";
import { deepFreeze } from "./freeze.js";

export type DatasetName = "stormwater" | "nwp";

/** One released version of a dataset: data/changelog/<dataset>/<datasetVersion>.json. */
export interface Snapshot {
  dataset: DatasetName;
  datasetVersion: string;
  previousVersion: string | null;
  facts: FactIndex;
}

export function changelogDir(dataset: DatasetName, root = dataDir()): string {
  return path.join(root, "changelog", dataset);
}

/** JSON with object keys sorted: one text per content, so equal facts compare equal. */
export function canonicalJson(v: unknown, indent?: number): string {
  const sort = (x: unknown): unknown =>
    Array.isArray(x) ? x.map(sort) : x && typeof x === "object" ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, sort((x as Record<string, unknown>)[k])])) : x;
  return JSON.stringify(sort(v), null, indent);
}

/** The snapshot file's text: canonical, so regenerating it gives the same bytes. */
export function snapshotText(s: Snapshot): string {
  return `${canonicalJson(s, 2)}\n`;
}

/** Every snapshot in the folder (none when it does not exist), checked for shape. */
export function readSnapshots(dataset: DatasetName, dir = changelogDir(dataset)): Snapshot[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((f) => f.endsWith(".json")).sort().map((f) => {
    const s = JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")) as Snapshot;
    const where = `${dataset} changelog ${f}`;
    if (s.dataset !== dataset || `${s.datasetVersion}.json` !== f) throw new Error(`${where}: names ${s.dataset} ${s.datasetVersion}`);
    if (typeof s.facts !== "object" || s.facts === null || (s.previousVersion !== null && typeof s.previousVersion !== "string")) throw new Error(`${where}: not a snapshot`);
    for (const [key, f] of Object.entries(s.facts)) {
      const wellFormed = typeof f.group?.kind === "string" && typeof f.group?.id === "string" && BASIS_WORDS.includes(f.basis) && ["verified", "unverified"].includes(f.confidence) && (f.checkedOn === null || typeof f.checkedOn === "string");
      if (!wellFormed) throw new Error(`${where}: fact ${key} is not a fact record`);
    }
    return s;
  });
}

/** The snapshots in release order: one first version, each later one naming the one before. */
export function releaseChain(snapshots: Snapshot[], dataset: DatasetName): Snapshot[] {
  const byPrevious = new Map<string | null, Snapshot>();
  for (const s of snapshots) {
    if (byPrevious.has(s.previousVersion)) throw new Error(`${dataset} changelog: ${s.datasetVersion} and ${byPrevious.get(s.previousVersion)!.datasetVersion} both follow ${s.previousVersion ?? "nothing"}`);
    byPrevious.set(s.previousVersion, s);
  }
  const chain: Snapshot[] = [];
  for (let s = byPrevious.get(null); s; s = byPrevious.get(s.datasetVersion)) chain.push(s);
  if (chain.length !== snapshots.length) throw new Error(`${dataset} changelog: ${snapshots.length - chain.length} snapshot(s) not linked to the first version`);
  return chain;
}

/** The chain with the loaded data as its newest version: appended when not yet released, cut after it when older versions are loaded. */
export function withCurrent(chain: Snapshot[], current: Snapshot): Snapshot[] {
  const at = chain.findIndex((s) => s.datasetVersion === current.datasetVersion);
  if (at >= 0) return [...chain.slice(0, at), { ...current, previousVersion: chain[at].previousVersion }];
  return [...chain, { ...current, previousVersion: chain.at(-1)?.datasetVersion ?? null }];
}

/** What an integrator must recompute for: the value, basis, confidence and source of a fact. */
const stated = (f: FactRecord) => canonicalJson({ ...f, checkedOn: undefined });

export interface FactDiff {
  fact: string;
  change: "added" | "changed" | "removed";
  before: FactRecord | null;
  after: FactRecord | null;
}

/** The facts one version added, changed or removed against the one before, and how many were only re-read. */
export function diffFacts(before: FactIndex, after: FactIndex): { changes: FactDiff[]; rechecked: number } {
  const changes: FactDiff[] = [];
  let rechecked = 0;
  for (const key of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
    const a = before[key] ?? null;
    const b = after[key] ?? null;
    if (!a) changes.push({ fact: key, change: "added", before: null, after: b });
    else if (!b) changes.push({ fact: key, change: "removed", before: a, after: null });
    else if (stated(a) !== stated(b)) changes.push({ fact: key, change: "changed", before: a, after: b });
    else if (a.checkedOn !== b.checkedOn) rechecked++;
  }
  return { changes, rechecked };
}

const KIND = { added: FactChangeKind.ADDED, changed: FactChangeKind.CHANGED, removed: FactChangeKind.REMOVED } as const;

function stateMsg(f: FactRecord | null): FactState | undefined {
  if (!f) return undefined;
  return create(FactStateSchema, {
    value: fromJson(ValueSchema, (f.value ?? null) as JsonValue),
    basis: basisOf(f.basis),
    confidence: f.confidence === "verified" ? Confidence.VERIFIED : Confidence.UNVERIFIED,
    checkedOn: f.checkedOn ?? undefined,
    sourceCitation: f.sourceCitation,
    sourceUrl: f.sourceUrl,
    quote: f.quote,
  });
}

const byName = (a: string, b: string) => a.localeCompare(b, "en", { numeric: true });

/** Every answer of GET /api/v1/changes for this dataset, by `since`; built once, frozen. */
export function buildChangelog(dataset: DatasetName, chain: Snapshot[]): Map<string, FactChanges> {
  const steps = chain.map((s, i) => ({ version: s, ...(i === 0 ? { changes: [], rechecked: 0 } : diffFacts(chain[i - 1].facts, s.facts)) }));
  const current = chain.at(-1)!.datasetVersion;
  const answers = new Map<string, FactChanges>();
  chain.forEach((since, i) => {
    const later = steps.slice(i + 1);
    const groups = new Map<string, { kind: string; id: string; changes: FactChange[] }>();
    for (const step of later) {
      for (const c of step.changes) {
        const g = (c.after ?? c.before)!.group;
        const k = `${g.kind}\0${g.id}`;
        if (!groups.has(k)) groups.set(k, { ...g, changes: [] });
        groups.get(k)!.changes.push(create(FactChangeSchema, { fact: c.fact, change: KIND[c.change], datasetVersion: step.version.datasetVersion, before: stateMsg(c.before), after: stateMsg(c.after) }));
      }
    }
    answers.set(since.datasetVersion, deepFreeze(create(FactChangesSchema, {
      dataset,
      since: since.datasetVersion,
      currentVersion: current,
      versions: later.map((s) => create(DatasetReleaseSchema, {
        datasetVersion: s.version.datasetVersion,
        previousVersion: s.version.previousVersion ?? undefined,
        factCount: Object.keys(s.version.facts).length,
        changeCount: s.changes.length,
        recheckedCount: s.rechecked,
      })),
      changeCount: later.reduce((n, s) => n + s.changes.length, 0),
      groups: [...groups.values()].sort((a, b) => byName(a.kind, b.kind) || byName(a.id, b.id)).map((g) => create(FactChangeGroupSchema, g)),
    })));
  });
  return answers;
}

export interface Changelog {
  /** Every version, oldest first; the last is the loaded data. */
  versions: string[];
  /** Every change after `version`; InvalidArgument naming the known versions when it is not one. */
  since(version: string): FactChanges;
}

/** The changelog a service serves: its released snapshots plus the data it loaded. */
export function serviceChangelog(dataset: DatasetName, current: Snapshot, dir = changelogDir(dataset)): Changelog {
  const answers = buildChangelog(dataset, withCurrent(releaseChain(readSnapshots(dataset, dir), dataset), current));
  const versions = [...answers.keys()];
  return {
    versions,
    since(version) {
      const answer = answers.get(version);
      if (answer) return answer;
      throw invalidArgument(`since: ${JSON.stringify(version.slice(0, 80))} is not a ${dataset} dataset version this service knows.`, [
        { field: "since", description: `since must be a ${dataset} dataset version.`, reason: ViolationReason.UNKNOWN_VALUE, knownValues: versions },
      ]);
    },
  };
}
