// The pages of one inspection report: the form that records a new one, and a version of a report
// with every field, its photos, its corrective actions' deadlines, its earlier versions, and the
// form that signs a draft or amends a signed version (with photos).
import { InspectionStatus, type CorrectiveAction, type Inspection } from "@permits/proto/sites/v1/sites";
import { html, type Html } from "./html.js";
import { checkbox, csrfField, errorSummary, input, textarea, type FieldErrors } from "./form.js";
import { isLabelledSummary, reportFields, typeWords } from "./report-form.js";
import { CERTIFICATION, statusWords } from "./inspections-view.js";
import { choiceFields, deadlinesView, dueWords, type CorrectiveChoice } from "./corrective-choice.js";
import { photoList, photosField } from "./photos.js";

/** Each finding's choice of deadline, or, where its corrective action is open already, that action's. */
function findingDeadline(choice: CorrectiveChoice, values: Record<string, string>, errors: FieldErrors | undefined, opened: readonly CorrectiveAction[]) {
  return (n: number): Html => {
    const action = opened.find((c) => c.findingId === `f${n}`);
    if (action) return html`<p class="muted">A corrective action is open for this finding, due ${action.dueOn}${dueWords(action) ? ` (${dueWords(action)})` : ""}.</p>`;
    return choiceFields(n, choice, values, errors);
  };
}

export function newInspectionForm(siteId: string, siteName: string, token: string, choice: CorrectiveChoice, values: Record<string, string>, errors?: FieldErrors): Html {
  return html`<p><a href="/app/sites/${siteId}">← ${siteName}</a></p>
<h1>Record an inspection</h1>
<p>Save it as a draft first; sign it on the next page when it is complete. A signed report never changes.</p>
${errorSummary(errors)}
<h2>Corrective-action deadlines of your permit</h2>${deadlinesView(choice)}
<form method="post" action="/app/sites/${siteId}/inspections" enctype="multipart/form-data" novalidate>
${csrfField(token)}
${reportFields(values, errors, findingDeadline(choice, values, errors, []))}
${photosField(errors)}
<p><button type="submit">Save the draft</button></p>
</form>`;
}

function reportTable(i: Inspection): Html {
  const r = i.report!;
  const rows: [string, string][] = [
    ["Time", [r.startTime, r.endTime].filter(Boolean).join(" to ")],
    ["Inspector", [r.inspector?.name, r.inspector?.role].filter(Boolean).join(", ")],
    ["Inspector's qualification", r.inspectorQualification],
    ["Type", typeWords(r)],
    ["Rain since the last inspection (inches)", r.rainfallInches === undefined ? "" : String(r.rainfallInches)],
    ["How the rain was measured", r.rainfallSource],
    ["Weather", r.weather],
    ["Phase of construction", r.phase],
    ["Areas inspected", r.areasInspected],
    ["Controls needing maintenance or repair", r.controlsNeedingRepair],
    ["Stabilization", r.stabilization],
    ["Discharges seen", r.dischargesSeen],
    ["Areas unsafe to inspect", r.unsafeAreas],
  ];
  // A report written before the fields existed: its summary's lines as written.
  const summary = isLabelledSummary(r.summary) ? r.summary.split("\n").filter(Boolean).map((line) => html`<tr><td colspan="2">${line}</td></tr>`) : r.summary ? html`<tr><th scope="row">Other notes</th><td>${r.summary}</td></tr>` : "";
  return html`<table class="stack"><tbody>${rows.filter(([, v]) => v).map(([k, v]) => html`<tr><th scope="row">${k}</th><td>${v}</td></tr>`)}
${summary}
${r.findings.map((f) => html`<tr><th scope="row">Finding${f.location ? `: ${f.location}` : ""}</th><td>${f.description}${f.needsCorrectiveAction ? " (needs a corrective action)" : ""}</td></tr>`)}
</tbody></table>`;
}

export interface InspectionPage {
  siteId: string;
  siteName: string;
  token: string;
  /** Every version of the report, latest first. */
  versions: readonly Inspection[];
  /** The version shown. */
  shown: Inspection;
  writable: boolean;
  choice: CorrectiveChoice;
  /** The report's corrective actions. */
  actions: readonly CorrectiveAction[];
  /** The form's values and errors when a change was refused; else the shown version's. */
  values: Record<string, string>;
  errors?: FieldErrors;
}

function changeForms(p: InspectionPage): Html {
  const latest = p.versions[0];
  const url = `/app/sites/${p.siteId}/inspections/${latest.id}`;
  const fields = reportFields(p.values, p.errors, findingDeadline(p.choice, p.values, p.errors, p.actions));
  if (latest.status === InspectionStatus.DRAFT) {
    return html`<h2>Sign this report</h2>
<form method="post" action="${url}/sign">${csrfField(p.token)}
<blockquote class="notice">${CERTIFICATION}</blockquote>
${checkbox({ name: "agree", label: "I agree to the statement above" }, {})}
${input({ name: "signed_by", label: "Type your full name to sign", required: true, maxlength: 200 }, {})}
<p><button type="submit">Sign the report</button></p></form>
<h2>Change the draft</h2>
${errorSummary(p.errors)}
<form method="post" action="${url}" enctype="multipart/form-data" novalidate>${csrfField(p.token)}${fields}
${photosField(p.errors, latest.photos.length)}<p><button type="submit" class="secondary">Save changes</button></p></form>`;
  }
  // Closed until asked for (the signed report is what the page is for), open when a sent amendment was refused, so its errors show.
  return html`<details${p.errors?.size ? html` open` : ""}><summary>Amend this report</summary>
<p>A signed report never changes. An amendment is a new version with your reason; this signed version stays as it is, with its own photos, and the amendment is signed in its turn. Photos added here are kept with the amendment.</p>
${errorSummary(p.errors)}
<form method="post" action="${url}/amendments" enctype="multipart/form-data" novalidate>${csrfField(p.token)}
${textarea({ name: "reason", label: "Why it is amended", required: true }, p.values, p.errors)}
${fields}
${photosField(p.errors, latest.photos.length)}<p><button type="submit">Save the amendment</button></p></form></details>`;
}

export function inspectionPage(p: InspectionPage): Html {
  const { shown, versions } = p;
  const latest = versions[0];
  const base = `/app/sites/${p.siteId}/inspections/${latest.id}`;
  const others = versions.filter((v) => v.version !== shown.version);
  return html`<p><a href="/app/sites/${p.siteId}">← ${p.siteName}</a></p>
<h1>Inspection of <span class="nowrap">${shown.report!.inspectedOn}</span></h1>
<p><strong>Version ${shown.version}:</strong> ${statusWords(shown)}${shown.amendmentReason ? html`. Reason: ${shown.amendmentReason}` : ""}</p>
${shown.superseded ? html`<p class="notice">A later version amends this one. <a href="${base}">See the latest version</a>.</p>` : ""}
${reportTable(shown)}
${photoList(p.siteId, shown.photos)}
<h2>Corrective-action deadlines for what this inspection found</h2>${deadlinesView(p.choice)}
${others.length ? html`<h2>Other versions</h2><ul>${others.map((v) => html`<li>Version ${v.version}: ${statusWords(v)}${v.amendmentReason ? html` (reason: ${v.amendmentReason})` : ""}; ${v.photos.length} photo(s). <a href="${base}?version=${v.version}">Open version ${v.version}</a></li>`)}</ul>` : ""}
${p.writable && shown === latest ? changeForms(p) : ""}`;
}
