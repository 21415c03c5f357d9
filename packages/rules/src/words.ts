// Small helpers for the answers' templates, shared by both engines: counts with their plural
// forms, verb agreement and lists, so no template writes "1 of its requirements have".

/** "1 requirement", "3 requirements". */
export function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The singular or plural form for n. */
export function agree<T extends string>(n: number, one: T, many: T): T {
  return n === 1 ? one : many;
}

/** "a", "a and b", "a, b and c". */
export function listWords(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

/** The plain words for a fact no source we read confirms. */
export function notConfirmed(agency: string): string {
  return `not confirmed in any source we could read; confirm with ${agency}`;
}

/**
 * Does a requirement's detail state its unit? It must name the unit's measure (its first word),
 * singular or plural: "0.5 inch" states "inches of rain", "14 calendar days" states "calendar
 * days"; "%" states "percent".
 */
export function statesUnit(detail: string, unit: string): boolean {
  const measure = unit.trim().split(/\s+/)[0].toLowerCase();
  const forms = [measure, measure === "inches" ? "inch" : measure === "feet" ? "foot" : measure.replace(/s$/, "")];
  if (measure === "percent") forms.push("%");
  const text = detail.toLowerCase();
  return forms.some((f) => text.includes(f));
}
