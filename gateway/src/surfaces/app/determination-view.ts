// A site's stormwater answer as a page section: coverage, the governing permit, the notices (as
// the answer words them), and each requirement with its citation. An unverified value is marked
// Unverified beside it; an empty requirement list says the permit has not been read, by the
// answer's own notice, and names the agency.
import type { Value } from "@bufbuild/protobuf/wkt";
import { Confidence, type Citation } from "@permits/proto/common/v1/common";
import { Coverage, type Determination, type Requirement } from "@permits/proto/stormwater/v1/stormwater";
import { html, type Html } from "./html.js";

const COVERAGE_WORDS: Record<number, string> = {
  [Coverage.REQUIRED]: "Permit coverage is required",
  [Coverage.NOT_REQUIRED]: "Permit coverage is not required",
  [Coverage.VERIFY]: "Check with the agency: the service will not answer this from what it holds",
};

/** The coverage reason as a page says it: the comparison the answer also writes in figures, e.g. " (4.5 >= 1)", is already said in words beside it. */
const coverageWords = (reason: string) => reason.replace(/ \([^()]* (?:>=|<) [^()]*\)/g, "");

export function confidenceMark(c: Confidence): Html {
  return c === Confidence.VERIFIED ? html`<span class="verified">Verified</span>` : html`<span class="unverified">Unverified</span>`;
}

export function citationView(c: Citation | undefined): Html {
  if (!c) return html`<span class="unverified">Unverified</span> <span class="muted">no source held</span>`;
  const where = c.sourceUrl ? html`<a href="${c.sourceUrl}" rel="noopener noreferrer">${c.sourceCitation || "source"}</a>` : c.sourceCitation || "no source held";
  return html`${confidenceMark(c.confidence)} <span class="muted">${where}</span>${c.quote ? html` <q>${c.quote}</q>` : ""}`;
}

export function valueText(v: Value | undefined): string | null {
  if (!v) return null;
  switch (v.kind.case) {
    case "numberValue":
      return String(v.kind.value);
    case "stringValue":
      return v.kind.value;
    case "boolValue":
      return v.kind.value ? "yes" : "no";
    default:
      return null;
  }
}

function requirementRow(r: Requirement): Html {
  const value = valueText(r.value);
  return html`<tr><td data-label="Requirement"><strong>${r.label}</strong><br><span class="muted">${r.id}</span></td>
<td data-label="What it asks">${r.detail}${value !== null ? html`<br>Value: ${value}${r.citation?.confidence !== Confidence.VERIFIED ? html` <span class="unverified">Unverified</span>` : ""}` : ""}${r.because ? html`<br><span class="muted">Why it applies: ${r.because}</span>` : ""}</td>
<td data-label="Source">${citationView(r.citation)}</td></tr>`;
}

export function determinationView(d: Determination): Html {
  const p = d.permit;
  const j = d.jurisdiction;
  const agency = j?.agencyName ? html`${j.agencyName}${j.agencyUrl ? html` (<a href="${j.agencyUrl}" rel="noopener noreferrer">${j.agencyUrl}</a>)` : ""}` : "the state's permitting agency";
  const permit = p
    ? html`<p><strong>Permit:</strong> ${p.name}${p.permitNumber ? html` (${p.permitNumber})` : ""}, issued by ${p.agencyName || p.authority}. ${confidenceMark(p.confidence)} <span class="muted">Version ${p.version}</span></p>`
    : html`<p><strong>Permit:</strong> not identified. Ask ${agency}.</p>`;
  const requirements = d.requirements.length
    ? html`<details><summary>Show the ${d.requirements.length} requirements, each with its source</summary><table class="stack"><thead><tr><th>Requirement</th><th>What it asks</th><th>Source</th></tr></thead><tbody>${d.requirements.map(requirementRow)}</tbody></table></details>`
    : html`<p class="notice"><strong>${d.notices.find((n) => n.startsWith("No requirements are listed because")) ?? "No requirements are listed."}</strong> An empty list does not mean nothing is required: ask ${agency}.</p>`;
  return html`<section aria-labelledby="determination"><h2 id="determination">Which permit, and what it requires</h2>
<p><strong>${COVERAGE_WORDS[d.coverage] ?? "Coverage not known"}.</strong> ${coverageWords(d.coverageReason)}</p>
${permit}
<p><strong>Permitting authority:</strong> ${j?.name ?? ""}: ${agency}. ${j ? confidenceMark(j.confidence) : ""}</p>
<h3>Notices</h3>
<ul>${d.notices.map((n) => html`<li>${n}</li>`)}</ul>
<h3>Requirements</h3>
${requirements}
<p class="muted">Worked out from the permit data of version ${d.datasetVersion}.</p></section>`;
}
