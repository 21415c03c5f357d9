// What a site must be told, in plain words, written once: its rules changed (each change before and
// after, with its source), its permit expiring, overdue inspections and corrective actions. The
// dashboard lists them first; a site's page shows the changes; its plan list says when a plan is
// out of date. The conditions themselves are @permits/swppp/deadlines' and the sites service's.
import type { Value } from "@bufbuild/protobuf/wkt";
import { type FactChange, FactChangeKind, type FactState } from "@permits/proto/common/v1/common";
import type { DashboardSite, RulesChange } from "@permits/proto/sites/v1/sites";
import type { Determination } from "@permits/proto/stormwater/v1/stormwater";
import { permitExpiring, type PermitExpiring, siteSchedule } from "@permits/swppp/deadlines";
import { confidenceMark, valueText } from "./determination-view.js";
import { html, type Html } from "./html.js";
import { answerOfSnapshot } from "./site-records.js";

/** What a changed fact is about, from its place in the data (GET /api/v1/changes names it so). */
function factSubject(fact: string, d: Determination): string {
  const parts = fact.split("/");
  const after = (segment: string) => (parts.includes(segment) ? parts[parts.indexOf(segment) + 1] : undefined);
  const requirement = after("requirements");
  if (requirement) return `Requirement: ${d.requirements.find((r) => r.id === requirement)?.label ?? requirement}`;
  const screen = after("screens");
  if (screen) return `Eligibility check: ${d.eligibilityScreens.find((s) => s.id === screen)?.label ?? screen}`;
  if (parts.includes("credential") || parts.includes("inspectorCredential")) return "Who may inspect the site";
  if (parts[0] === "epa-areas") return "Where EPA issues the permit";
  if (parts[0] === "jurisdictions" && !parts.includes("statePermits")) return `The permitting authority${d.jurisdiction ? ` (${d.jurisdiction.name})` : ""}`;
  return `The permit${d.permit ? ` (${d.permit.name})` : ""}: its number, dates or text`;
}

/** The fields a fact states, in words: its own words where it has them, else each field. */
function stateValue(v: Value | undefined): string {
  if (v?.kind.case !== "structValue") return valueText(v) ?? "no value held";
  const fields = v.kind.value.fields;
  const text = (k: string) => valueText(fields[k]);
  const detail = text("detail") ?? text("summary");
  const value = text("value");
  if (detail) return value !== null ? `${detail} Value: ${value}${text("unit") ? ` ${text("unit")}` : ""}.` : detail;
  const shown = Object.keys(fields).filter((k) => k !== "id" && valueText(fields[k]) !== null).sort();
  return shown.length ? shown.map((k) => `${k}: ${text(k)}`).join("; ") : "no value held";
}

function stateView(s: FactState | undefined, absent: string): Html {
  if (!s) return html`<span class="muted">${absent}</span>`;
  const source = s.sourceUrl ? html`<a href="${s.sourceUrl}" rel="noopener noreferrer">${s.sourceCitation || "source"}</a>` : s.sourceCitation || "no source held";
  return html`${stateValue(s.value)}<br>${confidenceMark(s.confidence)} <span class="muted">${source}${s.checkedOn ? `, read ${s.checkedOn}` : ""}</span>${s.quote ? html` <q>${s.quote}</q>` : ""}`;
}

function changeRow(c: FactChange, d: Determination): Html {
  return html`<tr><td data-label="What changed"><strong>${factSubject(c.fact, d)}</strong></td>
<td data-label="Before">${stateView(c.before, c.change === FactChangeKind.ADDED ? "Not held before" : "No value held")}</td>
<td data-label="Now">${stateView(c.after, c.change === FactChangeKind.REMOVED ? "No longer held: ask the permitting agency" : "No value held")}</td></tr>`;
}

/** "The rules for this site changed on …": one block per dataset version not yet acted on. */
export function rulesChangesView(changes: readonly RulesChange[], d: Determination, writable: boolean): Html {
  if (changes.length === 0) return html``;
  return html`<section aria-labelledby="rules" class="notice"><h2 id="rules">The rules for this site changed</h2>
${changes.map(
  (m) => html`<p><strong>The rules for this site changed on ${m.markedAt.slice(0, 10)}.</strong> ${m.changes.length === 1 ? "One thing" : `${m.changes.length} things`} its permit answer and plan rely on ${m.changes.length === 1 ? "is" : "are"} different now (dataset ${m.datasetVersion}) from when its answer was worked out (dataset ${m.previousVersion}).</p>
<table class="stack"><thead><tr><th>What changed</th><th>Before</th><th>Now</th></tr></thead><tbody>${m.changes.map((c) => changeRow(c, d))}</tbody></table>`,
)}
<p>${writable ? "Regenerate the plan below: the site's permit answer is worked out again against the current rules, and the new plan version follows it." : "The site is read-only, so its plan cannot be regenerated."}</p></section>`;
}

/** The plan list's line when the rules changed after the plans were written. */
export function planOutOfDate(changes: readonly RulesChange[]): Html {
  return changes.length ? html`<p class="overdue">These plan versions are out of date since dataset ${changes[0].datasetVersion}: the rules they were written against have changed.</p>` : html``;
}

export function regenerateLabel(changes: readonly RulesChange[]): string {
  return changes.length ? "Regenerate the plan with the current rules" : "Make a new plan version";
}

function expiringWords(e: PermitExpiring): string {
  const when = `${e.expired ? "expired" : "expires"} on ${e.permit.expiresOn}${e.permit.verified ? "" : " (Unverified date)"}`;
  const end = e.beforeSiteEnds ? `, before the site's end date (${e.siteEndsOn})` : "";
  return `Its permit, ${e.permit.name}${e.permit.permitNumber ? ` (${e.permit.permitNumber})` : ""}, ${when}${end}. Find out from the permitting agency how coverage continues, and update the plan.`;
}

/** The site page's line when its permit expires before the site ends or soon. */
export function permitExpiringView(e: PermitExpiring | null): Html {
  return e ? html`<p class="notice"><strong>${expiringWords(e)}</strong></p>` : html``;
}

const OVERDUE_WHAT = { routine: "A routine inspection", storm_event: "An inspection after rain", report: "An inspection report" } as const;

interface AttentionItem {
  siteId: string;
  siteName: string;
  /** rules first, then the permit, then overdue work. */
  rank: number;
  words: string;
  anchor: string;
}

/** What each open site must act on, from the dashboard's one read. */
export function attentionItems(rows: readonly DashboardSite[], today: string): AttentionItem[] {
  const items: AttentionItem[] = [];
  for (const { site, determination, signedInspections, rainEvents, overdueCorrectiveActions, rulesChanges } of rows) {
    const s = site!;
    if (s.closedOn) continue;
    const at = (rank: number, words: string, anchor: string) => items.push({ siteId: s.id, siteName: s.details!.name, rank, words, anchor });
    for (const m of rulesChanges) at(0, `The rules for this site changed on ${m.markedAt.slice(0, 10)}: ${m.changes.length === 1 ? "one thing" : `${m.changes.length} things`} its plan relies on. Review the changes and regenerate the plan.`, "rules");
    if (determination) {
      const answer = answerOfSnapshot(determination);
      const expiring = permitExpiring(answer, s.details?.input?.endDate ?? null, today);
      if (expiring) at(1, expiringWords(expiring), "determination");
      for (const o of siteSchedule(answer, signedInspections, rainEvents, today, s.details?.inspectionFrequency).overdue) at(2, `${OVERDUE_WHAT[o.what]} was due on ${o.due}. Inspect the site and sign the report.`, "inspections");
    }
    if (overdueCorrectiveActions > 0) at(2, `${overdueCorrectiveActions === 1 ? "A corrective action is past its due date" : `${overdueCorrectiveActions} corrective actions are past their due dates`}. Finish the work and record it as completed.`, "inspections");
  }
  return items.sort((a, b) => a.rank - b.rank || a.siteName.localeCompare(b.siteName));
}

export function attentionView(items: readonly AttentionItem[]): Html {
  if (items.length === 0) return html``;
  return html`<section aria-labelledby="attention" class="notice"><h2 id="attention">Needs your attention</h2>
<ul>${items.map((i) => html`<li><a href="/app/sites/${i.siteId}#${i.anchor}">${i.siteName}</a>: ${i.words}</li>`)}</ul></section>`;
}
