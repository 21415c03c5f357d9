// What a scenario returns, and the checks every scenario applies to every answer.
import type { Outcome, Surface } from "./load.js";

export interface ScenarioOptions {
  durationMs: number;
  /** Requests per second of the steady load. */
  rate: number;
}

export type Figure = number | string | boolean;

export interface Row {
  scenario: string;
  sent: number;
  /** Answers by HTTP status, and network failures by their code (ECONNREFUSED, ...). */
  statuses: Record<string, number>;
  /** Broken expectations, grouped: empty when every expectation held. */
  violations: string[];
  /** Scenario-specific measurements, in the order they are printed. */
  figures: Record<string, Figure>;
}

/** Collects broken expectations, one line per kind with its count and first occurrence. */
export class Violations {
  private readonly seen = new Map<string, { count: number; firstAt?: number }>();
  constructor(private readonly t0: number) {}

  add(what: string, at?: number): void {
    const v = this.seen.get(what);
    if (v) v.count++;
    else this.seen.set(what, { count: 1, firstAt: at });
  }

  list(): string[] {
    return [...this.seen].map(([what, v]) => {
      const where = v.firstAt === undefined ? "" : ` (first at +${Math.round(v.firstAt - this.t0)} ms)`;
      return v.count > 1 ? `${what} x${v.count}${where}` : `${what}${where}`;
    });
  }
}

export function statusCounts(outcomes: Outcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of outcomes) {
    const k = o.status !== undefined ? String(o.status) : o.error!;
    counts[k] = (counts[k] ?? 0) + 1;
  }
  return counts;
}

/** The code a surface uses for a dependency that is down, and while the gateway drains (docs/using.md, "Errors"). */
export const UNAVAILABLE: Record<Surface, string> = { doc1: "internal", doc2: "internal_error" };

/**
 * The documented 503: a positive whole number of seconds in Retry-After, an error body in the
 * route's vocabulary carrying the request id, and the expected code (`codes` per surface).
 */
export function isDocumented503(o: Outcome, codes: Partial<Record<Surface, string>> = UNAVAILABLE): boolean {
  return o.status === 503 && /^[1-9]\d*$/.test(o.retryAfter ?? "") && o.shapeProblem === undefined && o.code === codes[o.surface];
}

/**
 * Checks that hold for every answer in every scenario: an X-Request-Id, an error body in the
 * route's vocabulary, and no 5xx but the documented 503. Whether a 503 was expected at that
 * moment is for the scenario to judge.
 */
export function checkAnswer(o: Outcome, v: Violations, codes: Partial<Record<Surface, string>> = UNAVAILABLE): void {
  if (o.status === undefined) return;
  if (!o.requestId) v.add(`${o.label}: ${o.status} without X-Request-Id`, o.startedAt);
  if (o.shapeProblem) v.add(`${o.label}: ${o.status} error body not in ${o.surface}'s vocabulary: ${o.shapeProblem}`, o.startedAt);
  if (o.status >= 500 && !isDocumented503(o, codes)) {
    v.add(`${o.label}: ${o.status} ${o.code ?? ""} is not the documented 503 (Retry-After ${JSON.stringify(o.retryAfter)}, expected code ${codes[o.surface]})`, o.startedAt);
  }
}

/** Milliseconds, rounded, for figures. */
export const ms = (x: number): number => Math.round(x);

export function share(part: number, whole: number): string {
  return whole === 0 ? "n/a" : `${((100 * part) / whole).toFixed(1)} %`;
}
