// How long a closed site's records are kept: the later of three years after the close date (the
// federal construction permit's period, which this service keeps as its floor for every site) and
// any longer period the site's own permit states in a `retention.*` requirement of the saved
// determination. The answer says which applied and on what basis, in plain words.

/** The floor, in years after the close date. */
export const FEDERAL_RETENTION_YEARS = 3;

export interface RetentionDecision {
  retainUntil: string;
  basis: string;
  /** The requirement that set a longer period; "" when the floor applied. */
  requirementId: string;
}

interface HeldPeriod {
  id: string;
  years: number;
  label: string;
  confidence: string;
}

/**
 * `years` after a yyyy-mm-dd date. 29 February goes to 1 March (SQLite's date() does so; PostgreSQL
 * gives 28 February), so the date is never earlier than either database's own check of it.
 */
export function addYears(date: string, years: number): string {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number];
  return new Date(Date.UTC(y + years, m - 1, d)).toISOString().slice(0, 10);
}

/** The numeric `retention.*` periods in years that a stormwater answer (document 1's JSON) holds. */
function heldPeriods(answer: unknown): HeldPeriod[] {
  const requirements = (answer as { requirements?: unknown } | null)?.requirements;
  if (!Array.isArray(requirements)) return [];
  const out: HeldPeriod[] = [];
  for (const r of requirements as Array<Record<string, unknown>>) {
    const id = typeof r?.id === "string" ? r.id : "";
    const unit = typeof r?.unit === "string" ? r.unit : "";
    const label = typeof r.label === "string" ? r.label : id;
    // Quoted into the stored basis: plain text of a sane length only (PostgreSQL's text holds no U+0000).
    if (id.length > 100 || label.length > 200 || /\u0000/.test(id + label)) continue;
    if (!id.startsWith("retention.") || typeof r.value !== "number" || !Number.isInteger(r.value) || r.value <= 0 || r.value > 100 || !/^years\b/.test(unit)) continue;
    const citation = r.citation as { confidence?: unknown } | undefined;
    out.push({ id, years: r.value, label, confidence: citation?.confidence === "verified" ? "verified" : "unverified" });
  }
  return out;
}

/** The retention of a site closed on `closedOn`, given its latest saved answer (or none). */
export function retentionFor(closedOn: string, answer: unknown, permitName: string): RetentionDecision {
  const floor = addYears(closedOn, FEDERAL_RETENTION_YEARS);
  const held = heldPeriods(answer).sort((a, b) => b.years - a.years)[0];
  const permit = permitName ? `the site's permit (${permitName})` : "the site's permit";
  if (held && held.years > FEDERAL_RETENTION_YEARS) {
    return {
      retainUntil: addYears(closedOn, held.years),
      basis: `Kept ${held.years} years after the close date ${closedOn}: ${permit} asks for ${held.years} years ("${held.label}", ${held.id}, held as ${held.confidence} in the permit answer saved for the site), longer than the federal permit's three years.`,
      requirementId: held.id,
    };
  }
  const also = held ? ` ${permit} states ${held.years} years too ("${held.label}", ${held.id}, held as ${held.confidence}).` : " The permit answer saved for the site holds no longer period.";
  return { retainUntil: floor, basis: `Kept three years after the close date ${closedOn}, the federal construction permit's period, which this service keeps for every site.${also}`, requirementId: "" };
}
