// The inspection schedule as a page section, from @permits/swppp's one pure function: the next
// routine inspection, storm-event inspections, report deadlines and what is overdue, each with
// its basis (a permit rule with its citation, or the operator's own entry).
import type { HeldRule, ItemBasis, Schedule, ScheduleItem } from "@permits/swppp";
import { html, type Html } from "./html.js";

function ruleSource(r: HeldRule): Html {
  const c = r.citation;
  const where = c.sourceUrl ? html`<a href="${c.sourceUrl}" rel="noopener noreferrer">${c.sourceCitation}</a>` : c.sourceCitation;
  return html`${c.confidence === "verified" ? html`<span class="verified">Verified</span>` : html`<span class="unverified">Unverified</span>`} <span class="muted">${r.label}: ${where}</span>`;
}

export function basisView(basis: readonly ItemBasis[]): Html {
  return html`${basis.map((b) => html`<br>${b.kind === "permit" ? ruleSource(b.rule) : html`<span class="muted">${b.words}</span>`}`)}`;
}

function item(label: string, i: ScheduleItem, said: ReadonlySet<string>): Html {
  // A statement already shown above the list is not repeated beside each date.
  return html`<li${i.overdue ? html` class="overdue"` : ""}><strong>${label}:</strong> ${i.due ?? "no date yet"}${i.overdue ? " (overdue)" : ""}.${said.has(i.words) ? "" : html` ${i.words}${basisView(i.basis)}`}</li>`;
}

export function scheduleView(s: Schedule): Html {
  const said = new Set([...s.statements, s.frequency.words]);
  const storms = s.stormEvents.map((e) => item(`Inspection after ${e.inches} in. of rain on ${e.rainDate} (${e.status === "done" ? `done ${e.doneOn}` : e.status})`, e, said));
  const reports = s.reports.filter((r) => r.completedOn === null).map((r) => item(`Report of the ${r.inspectionDate} inspection due`, r, said));
  const frequency = s.statements.includes(s.frequency.words) ? basisView(s.frequency.basis) : html` ${s.frequency.words}${basisView(s.frequency.basis)}`;
  return html`<section aria-labelledby="schedule"><h2 id="schedule">Inspection schedule</h2>
${s.statements.map((t) => html`<p class="notice">${t}</p>`)}
${s.overdue.length ? html`<p class="overdue">Overdue: ${s.overdue.map((o) => `${o.words} (due ${o.due})`).join("; ")}</p>` : ""}
<p><strong>How often:</strong>${frequency}</p>
<ul>${item("Next routine inspection", s.nextRoutine, said)}${storms}${reports}</ul></section>`;
}
