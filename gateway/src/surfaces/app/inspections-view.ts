// The inspections part of a site's page: each report's latest version (draft or signed, and what
// amends it), and the open corrective actions with their due dates and a form to close each.
import { CorrectiveActionStatus, InspectionStatus, type CorrectiveAction, type Inspection } from "@permits/proto/sites/v1/sites";
import { html, type Html } from "./html.js";
import { csrfField, input, textarea } from "./form.js";
import { latestVersions } from "./site-records.js";
import { dueWords } from "./corrective-choice.js";
import { typeWords } from "./report-form.js";

/** The statement a signer agrees to (40 CFR 122.22(d), the wording EPA's forms use). */
export const CERTIFICATION =
  "I certify under penalty of law that this document and all attachments were prepared under my direction or supervision in accordance with a system designed to assure that qualified personnel properly gathered and evaluated the information submitted. Based on my inquiry of the person or persons who manage the system, or those persons directly responsible for gathering the information, the information submitted is, to the best of my knowledge and belief, true, accurate, and complete. I am aware that there are significant penalties for submitting false information, including the possibility of fine and imprisonment for knowing violations.";

export function statusWords(i: Inspection): string {
  if (i.status === InspectionStatus.SIGNED) return `signed by ${i.signedBy} on ${i.signedAt.slice(0, 10)}`;
  return i.version > 1 ? `amendment (version ${i.version}), not signed yet` : "draft, not signed yet";
}

function correctiveItem(siteId: string, c: CorrectiveAction, token: string, writable: boolean, today: string): Html {
  const overdue = c.status === CorrectiveActionStatus.OPEN && c.dueOn < today;
  const form = writable
    ? html`<details><summary>Mark it done</summary><form method="post" action="/app/sites/${siteId}/corrective-actions/${c.id}/complete">${csrfField(token)}
${input({ name: "completed_on", id: `completed_on-${c.id}`, label: "Date it was done", type: "date", required: true }, { completed_on: today })}
${textarea({ name: "note", id: `note-${c.id}`, label: "What was done", required: true }, {})}
<p><button type="submit">Mark it done</button></p></form></details>`
    : "";
  return html`<li id="corrective-${c.id}"><strong>${c.description}</strong><br>Found ${c.foundOn}; due <span${overdue ? html` class="overdue"` : ""}>${c.dueOn}${overdue ? " (overdue)" : ""}</span>${dueWords(c) ? html` <span class="muted">(${dueWords(c)})</span>` : ""}${form}</li>`;
}

export function inspectionsView(siteId: string, all: readonly Inspection[], open: readonly CorrectiveAction[], token: string, writable: boolean, today: string): Html {
  const reports = latestVersions(all).sort((a, b) => b.report!.inspectedOn.localeCompare(a.report!.inspectedOn));
  return html`<section aria-labelledby="inspections"><h2 id="inspections">Inspections</h2>
${reports.length ? html`<ul class="cards">${reports.map((i) => html`<li><a href="/app/sites/${siteId}/inspections/${i.id}">Inspection of <span class="nowrap">${i.report!.inspectedOn}</span></a> (${typeWords(i.report!).toLowerCase()}${i.photos.length ? `, ${i.photos.length} photo(s)` : ""}): ${statusWords(i)}</li>`)}</ul>` : html`<p>No inspections recorded yet.</p>`}
<h3>Open corrective actions</h3>
${open.length ? html`<ul class="cards">${open.map((c) => correctiveItem(siteId, c, token, writable, today))}</ul>` : html`<p>None open.</p>`}</section>`;
}
