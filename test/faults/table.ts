// The rows as a fixed-width table: one line per figure, the scenario's own columns on its
// first line, then the violations of any scenario that had some.
import type { Row } from "./row.js";

const HEAD = ["scenario", "sent", "statuses", "violations", "figure", "value"];

export function formatTable(rows: Row[], title = "Fault scenarios"): string {
  // One group of lines per row.
  const groups = rows.map((r) => {
    const statuses = Object.entries(r.statuses)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, n]) => `${k}:${n}`)
      .join(" ");
    const figures = Object.entries(r.figures);
    if (figures.length === 0) figures.push(["", ""]);
    return figures.map(([name, value], i) => [...(i === 0 ? [r.scenario, String(r.sent), statuses, String(r.violations.length)] : ["", "", "", ""]), name, String(value)]);
  });
  const widths = HEAD.map((h, c) => Math.max(h.length, ...groups.flat().map((l) => l[c].length)));
  // Counts read best right-aligned.
  const cell = (text: string, c: number) => (c === 1 || c === 3 ? text.padStart(widths[c]) : text.padEnd(widths[c]));
  const render = (l: string[]) => l.map(cell).join("  ").trimEnd();
  const out = [title, render(HEAD), widths.map((w) => "-".repeat(w)).join("  ")];
  groups.forEach((g, i) => {
    if (i > 0) out.push("");
    out.push(...g.map(render));
  });
  const broken = rows.filter((r) => r.violations.length > 0);
  if (broken.length) {
    out.push("", "Violations:");
    for (const r of broken) for (const v of r.violations) out.push(`  ${r.scenario}: ${v}`);
  }
  return out.join("\n");
}
