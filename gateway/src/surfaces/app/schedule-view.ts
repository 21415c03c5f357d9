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

/** `note`: what became of it, after the date (a storm inspection done or missed). */
function item(label: string, i: ScheduleItem, said: ReadonlySet<string>, note = ""): Html {
  // A statement already shown above the list is not repeated beside each date.
  return html`<li${i.overdue ? html` class="overdue"` : ""}><strong>${label}:</strong> ${i.due ? html`<span class="nowrap">${i.due}</span>` : "no date yet"}${note}${i.overdue ? " (overdue)" : ""}.${said.has(i.words) ? "" : html` ${i.words}${basisView(i.basis)}`}</li>`;
}

const STORM_NOTE = { open: () => "", done: (on: string | null) => `, done on ${on}`, missed: () => ", missed: no inspection was made in time" } as const;

/** In place of the permit's options spelled out, where the form that lists them follows the schedule. */
const CHOOSE_BELOW = "Your permit offers more than one inspection frequency: choose the one you follow under \u201cHow often you inspect\u201d below, and record it in the plan. The schedule counts from it.";

/** `choiceBelow`: the form to choose among the permit's frequencies follows, so they are not spelled out twice. */
export function scheduleView(s: Schedule, opts: { choiceBelow?: boolean } = {}): Html {
  if (opts.choiceBelow && s.frequency.source === "none") {
    const instead = (t: string) => (t === s.frequency.words ? CHOOSE_BELOW : t);
    return sectionOf({ ...s, statements: s.statements.map(instead), frequency: { ...s.frequency, words: CHOOSE_BELOW }, nextRoutine: { ...s.nextRoutine, words: instead(s.nextRoutine.words) } }, false);
  }
  return sectionOf(s, true);
}

function sectionOf(s: Schedule, howOften: boolean): Html {
  const said = new Set([...s.statements, s.frequency.words]);
  const storms = s.stormEvents.map((e) => item(`Inspection after ${e.inches} in. of rain on ${e.rainDate}`, e, said, STORM_NOTE[e.status](e.doneOn)));
  const reports = s.reports.filter((r) => r.completedOn === null).map((r) => item(`Report of the ${r.inspectionDate} inspection due`, r, said));
  const frequency = s.statements.includes(s.frequency.words) ? basisView(s.frequency.basis) : html` ${s.frequency.words}${basisView(s.frequency.basis)}`;
  return html`<section aria-labelledby="schedule"><h2 id="schedule">Inspection schedule</h2>
${s.statements.map((t) => html`<p class="notice">${t}</p>`)}
${s.overdue.length ? html`<p class="overdue">Overdue: ${s.overdue.map((o) => `${o.words} (due ${o.due})`).join("; ")}</p>` : ""}
${howOften ? html`<p><strong>How often:</strong>${frequency}</p>` : ""}
<ul>${item("Next routine inspection", s.nextRoutine, said)}${storms}${reports}</ul></section>`;
}
