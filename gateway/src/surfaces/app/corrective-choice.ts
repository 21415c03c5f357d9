// Which corrective-action rule of the site's permit a finding's due date follows. The person picks
// one per finding from the site's corrective.* requirements (each shown with its citation and
// confidence); the earliest dated one is picked unless they choose another. Where the permit holds
// no such rule, or the chosen rule gives no date this service can count, the operator enters the
// date their permit binds them to, and the action records it as theirs.
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { Determination } from "@permits/proto/stormwater/v1/stormwater";
import { DueDateSource, type CorrectiveAction, type DueRuleSchema } from "@permits/proto/sites/v1/sites";
import { correctiveActionDeadlines, type CorrectiveDeadline, type CorrectiveDeadlines } from "@permits/swppp";
import { html, type Html } from "./html.js";
import { input, select, type FieldErrors } from "./form.js";
import { basisView } from "./schedule-view.js";

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export interface CorrectiveChoice {
  deadlines: CorrectiveDeadlines;
  /** The rule picked unless the person picks another: the earliest due date, then the permit's order. */
  cautious: CorrectiveDeadline | undefined;
}

/** The site's corrective-action rules for a problem found on `foundOn` (today where the form holds no date yet). */
export function correctiveChoice(determination: Determination, foundOn: string, today: string): CorrectiveChoice {
  const deadlines = correctiveActionDeadlines({ determination, foundOn: DATE.test(foundOn) ? foundOn : today });
  const dated = deadlines.deadlines.filter((d) => d.due !== null);
  const cautious = [...dated].sort((a, b) => a.due!.localeCompare(b.due!))[0] ?? deadlines.deadlines[0];
  return { deadlines, cautious };
}

const confidenceWord = (d: CorrectiveDeadline) => (d.rule.citation.confidence === "verified" ? "Verified" : "Unverified");

/** The rules with their deadlines in words, each with its citation and confidence; or the permit's blank. */
export function deadlinesView(c: CorrectiveChoice): Html {
  const d = c.deadlines;
  if (d.notHeld) return html`<p class="notice">${d.notHeld}</p>`;
  return html`<ul>${d.deadlines.map((x) => html`<li><strong>${x.rule.label}:</strong> ${x.words}${x.due ? html` (for a problem found on ${d.foundOn}: by ${x.due})` : ""}${basisView([{ kind: "permit", rule: x.rule }])}</li>`)}</ul>`;
}

/** A finding's choice of rule and, where needed, the date the operator enters. */
export function choiceFields(n: number, c: CorrectiveChoice, values: Record<string, string>, errors?: FieldErrors): Html {
  const date = input({ name: `finding_${n}_due_on`, label: c.deadlines.notHeld ? "Due date your permit sets" : "Due date, where the rule chosen gives none", hint: c.deadlines.notHeld ? "This service holds no corrective-action deadline from your permit (see above): enter the date your permit sets. It is kept as entered by you." : "Kept as entered by you.", type: "date" }, values, errors);
  if (c.deadlines.notHeld) return date;
  // The first option is counted when the report is saved, from the inspection date it holds then.
  const earliest = c.cautious ? `The earliest for the inspection's date (for ${c.deadlines.foundOn}: ${c.cautious.rule.label}${c.cautious.due ? `, by ${c.cautious.due}` : ""})` : "The earliest";
  const options = [["", earliest] as const, ...c.deadlines.deadlines.map((d) => [d.rule.id, `${d.rule.label}: ${d.due ? `by ${d.due}` : "no date counted"} (${d.rule.citation.sourceCitation}; ${confidenceWord(d)})`] as const)];
  return html`${select({ name: `finding_${n}_due_rule`, label: "Which deadline of your permit applies", hint: "Dates are counted from the inspection date; the earliest applies unless you choose another.", options }, values, errors)}
${date}`;
}

export interface Due {
  dueOn: string;
  dueSource: DueDateSource;
  dueRule?: MessageInitShape<typeof DueRuleSchema>;
}

/** A finding's due date from the form, or the error to show beside its field. */
export function dueOf(n: number, c: CorrectiveChoice, form: Record<string, string>): Due | { field: string; error: string } {
  const entered = (form[`finding_${n}_due_on`] ?? "").trim();
  const foundOn = c.deadlines.foundOn;
  const typed = (): Due | { field: string; error: string } => {
    const field = `finding_${n}_due_on`;
    if (!DATE.test(entered)) return { field, error: c.deadlines.notHeld ? "This service holds no corrective-action deadline from your permit: enter the date your permit sets." : "The deadline chosen gives no date this service can count: enter the date your permit sets, or choose another deadline." };
    if (entered < foundOn) return { field, error: `The due date cannot be before the inspection (${foundOn}).` };
    return { dueOn: entered, dueSource: DueDateSource.OPERATOR };
  };
  if (c.deadlines.notHeld) return typed();
  const id = form[`finding_${n}_due_rule`] || c.cautious!.rule.id;
  const rule = c.deadlines.deadlines.find((d) => d.rule.id === id);
  if (!rule) return { field: `finding_${n}_due_rule`, error: "Choose one of the deadlines listed." };
  const dueRule = { requirementId: rule.rule.id, label: rule.rule.label, deadline: rule.words, citation: rule.rule.citation.sourceCitation, confidence: rule.rule.citation.confidence };
  if (rule.due) return { dueOn: rule.due, dueSource: DueDateSource.PERMIT_RULE, dueRule };
  const own = typed();
  return "dueOn" in own ? { ...own, dueRule } : own;
}

/** Where a corrective action's due date comes from, in the words a reader sees. */
export function dueWords(c: CorrectiveAction): string {
  const r = c.dueRule;
  const rule = r ? `${r.label}, ${r.citation}, ${r.confidence === "verified" ? "Verified" : "Unverified"}` : "";
  if (c.dueSource === DueDateSource.OPERATOR) return r ? `entered by the operator (deadline chosen: ${rule})` : "entered by the operator";
  if (c.dueSource === DueDateSource.PERMIT_RULE && r) return `from the permit: ${rule}`;
  return "";
}
