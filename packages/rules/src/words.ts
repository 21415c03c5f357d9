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
