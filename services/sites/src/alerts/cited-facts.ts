// Which changed facts a saved stormwater answer cites: a pure function of the answer's JSON and the
// stormwater service's changelog (GET /api/v1/changes), which names each fact by its place in the
// data ("jurisdictions/TX/statePermits/tx-txr150000/requirements/inspection.frequency/citation",
// "cgp-requirements/requirements/inspection.frequency.option1/citation") and groups it by the
// jurisdiction, permit or EPA area it concerns. An answer cites a fact when the fact's group is the
// answer's jurisdiction, governing permit or the EPA area its input placed it in, and every
// requirement, eligibility screen or state permit the fact's key passes through is one the answer
// names. Facts of other permits, requirements and screens are not cited.
import type { FactChange, FactChangeGroup, FactState } from "@permits/proto/common/v1/common";

/** What an answer names that a fact can belong to. */
export interface CitedScope {
  jurisdiction: string;
  permitId: string;
  requirementIds: ReadonlySet<string>;
  screenIds: ReadonlySet<string>;
  /** The EPA areas (changelog groups of kind "area") the answer's input placed the site in. */
  areas: ReadonlySet<string>;
}

interface AnswerJson {
  jurisdiction?: { code?: unknown } | null;
  permit?: { id?: unknown } | null;
  requirements?: { id?: unknown }[] | null;
  eligibilityScreens?: { id?: unknown }[] | null;
  input?: { onTribalLand?: unknown; federalFacility?: unknown } | null;
}

const text = (v: unknown) => (typeof v === "string" ? v : "");
const ids = (list: { id?: unknown }[] | null | undefined) => new Set((Array.isArray(list) ? list : []).map((x) => text(x?.id)).filter((x) => x !== ""));

/** The scope of a saved answer (document 1's Determination as JSON); an unreadable answer cites nothing. */
export function scopeOfAnswer(answerJson: string): CitedScope {
  let a: AnswerJson = {};
  try {
    const parsed = JSON.parse(answerJson) as unknown;
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) a = parsed as AnswerJson;
  } catch {
    // Stored answers were checked as JSON when saved; nothing to cite otherwise.
  }
  const areas = new Set<string>();
  if (a.input?.onTribalLand === true) areas.add("indianCountry");
  if (a.input?.federalFacility === true) areas.add("federalFacilities");
  return { jurisdiction: text(a.jurisdiction?.code), permitId: text(a.permit?.id), requirementIds: ids(a.requirements), screenIds: ids(a.eligibilityScreens), areas };
}

/** Key segments that name a record of a list, and the set of the answer it must be in. */
const NAMED: Record<string, (s: CitedScope) => ReadonlySet<string>> = {
  requirements: (s) => s.requirementIds,
  screens: (s) => s.screenIds,
  statePermits: (s) => new Set([s.permitId]),
};

/** Whether the answer of `scope` cites the fact `key` of `group`. */
export function citesFact(scope: CitedScope, group: { kind: string; id: string }, key: string): boolean {
  const inGroup =
    (group.kind === "jurisdiction" && group.id === scope.jurisdiction && scope.jurisdiction !== "") ||
    (group.kind === "permit" && group.id === scope.permitId && scope.permitId !== "") ||
    (group.kind === "area" && scope.areas.has(group.id));
  if (!inGroup) return false;
  const parts = key.split("/");
  for (let i = 0; i < parts.length - 1; i++) {
    const named = NAMED[parts[i]];
    if (named && !named(scope).has(parts[i + 1])) return false;
  }
  return true;
}

/**
 * The changed facts an answer cites, one per fact across every version after the answer's: its state
 * before the first of those changes and after the last. A fact changed and changed back is left out.
 */
export function citedChanges(scope: CitedScope, groups: readonly FactChangeGroup[]): FactChange[] {
  const byFact = new Map<string, FactChange>();
  for (const g of groups) {
    for (const c of g.changes) {
      if (!citesFact(scope, g, c.fact)) continue;
      const seen = byFact.get(c.fact);
      byFact.set(c.fact, seen ? { ...seen, datasetVersion: c.datasetVersion, after: c.after } : c);
    }
  }
  return [...byFact.values()].filter((c) => !sameState(c.before, c.after)).sort((a, b) => (a.fact < b.fact ? -1 : a.fact > b.fact ? 1 : 0));
}

function sameState(a: FactState | undefined, b: FactState | undefined): boolean {
  if (!a || !b) return a === b;
  return JSON.stringify([a.value, a.basis, a.confidence, a.sourceCitation, a.sourceUrl, a.quote]) === JSON.stringify([b.value, b.basis, b.confidence, b.sourceCitation, b.sourceUrl, b.quote]);
}
