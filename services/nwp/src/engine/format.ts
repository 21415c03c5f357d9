// Deterministic number formatting: 12 significant digits removes float noise (0.1 + 0.2 → "0.3").
export function fmt(n: number): string {
  if (Number.isInteger(n)) return n === 0 ? "0" : String(n);
  // A shortest form of 12 characters or fewer has at most 12 significant digits, so rounding to
  // 12 would give it back unchanged; only longer forms (float noise) pay for toPrecision.
  const shortest = String(n);
  return shortest.length <= 12 ? shortest : String(Number(n.toPrecision(12)));
}

export function acres(n: number): string {
  return `${fmt(n)} ${n === 1 ? "acre" : "acres"}`;
}

export function feet(n: number): string {
  return `${fmt(n)} linear ${n === 1 ? "foot" : "feet"}`;
}

/** "NWP 29", "NWPs 57 and 58", "NWPs 21, 44 and 49". */
export function nwpList(numbers: number[]): string {
  if (numbers.length === 1) return `NWP ${numbers[0]}`;
  const head = numbers.slice(0, -1).join(", ");
  return `NWPs ${head} and ${numbers[numbers.length - 1]}`;
}
