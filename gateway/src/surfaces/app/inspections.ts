// Inspection reports and corrective actions: record (with photos), read, edit a draft, sign,
// amend a signed one (a new version with the reason; the signed one stays), and close a
// corrective action. A finding marked as needing a corrective action opens one, due on the
// earliest deadline the site's corrective.* requirements give, or on the date the operator enters
// where the permit holds none.
import type { FastifyInstance } from "fastify";
import { correctiveActionDeadlines, type CorrectiveDeadlines } from "@permits/swppp";
import { imageType } from "@permits/sites";
import { InspectionStatus, type Inspection } from "@permits/proto/sites/v1/sites";
import type { AppDeps } from "../../deps.js";
import { html, type Html } from "./html.js";
import { chromeOf, page } from "./layout.js";
import { filesOf, formOf, requireSession, requireWritable, type SignedIn } from "./context.js";
import { checkbox, csrfField, errorSummary, fieldErrorsOf, input, textarea, type FieldErrors } from "./form.js";
import { formOfReport, reportFieldName, reportFields, reportOf } from "./report-form.js";
import { answerOfSnapshot, todayOf, who, type SitesClient } from "./site-records.js";
import { CERTIFICATION, statusWords } from "./inspections-view.js";
import { basisView } from "./schedule-view.js";
import { PHOTO_MAX_COUNT } from "./errors.js";

const HTML = "text/html; charset=utf-8";

function deadlinesView(d: CorrectiveDeadlines): Html {
  if (d.notHeld) return html`<p class="notice">${d.notHeld}</p>`;
  return html`<ul>${d.deadlines.map((x) => html`<li>${x.words}${x.due ? html` (for a problem found on ${d.foundOn}: by ${x.due})` : ""}${basisView([{ kind: "permit", rule: x.rule }])}</li>`)}</ul>`;
}

/** The earliest dated deadline the permit gives, or undefined. */
function earliestDue(d: CorrectiveDeadlines): string | undefined {
  return d.deadlines.map((x) => x.due).filter((x): x is string => x !== null).sort()[0];
}

function newInspectionForm(siteId: string, siteName: string, token: string, values: Record<string, string>, errors?: FieldErrors): Html {
  return html`<p><a href="/app/sites/${siteId}">← ${siteName}</a></p>
<h1>Record an inspection</h1>
<p>Save it as a draft first; sign it on the next page when it is complete. A signed report never changes.</p>
${errorSummary(errors)}
<form method="post" action="/app/sites/${siteId}/inspections" enctype="multipart/form-data" novalidate>
${csrfField(token)}
${reportFields(values, errors)}
${input({ name: "corrective_due_on", label: "Due date for corrective actions", hint: "Needed only where this service holds no deadline from your permit (the site page says so).", type: "date" }, values, errors)}
<fieldset><legend>Photos</legend>
<label for="photos">Photos <span class="hint">Up to ${PHOTO_MAX_COUNT} photos, each at most 10 MB: JPEG, PNG, WebP or HEIC (what phones take).</span></label>
${(errors?.get("photos") ?? []).map((e) => html`<span class="field-error" id="photos-error">${e}</span>`)}
<input id="photos" name="photos" type="file" accept="image/jpeg,image/png,image/webp,image/heic" multiple>
</fieldset>
<p><button type="submit">Save the draft</button></p>
</form>`;
}

export function inspectionRoutes(app: FastifyInstance, deps: AppDeps): void {
  const sites: SitesClient = deps.clients.sites;

  /** Opens a corrective action for each finding that needs one and has none yet. */
  async function openCorrectiveActions(r: SignedIn, siteId: string, inspection: Inspection, operatorDue: string): Promise<void> {
    const w = { ...who(r), siteId };
    const det = answerOfSnapshot((await sites.getDetermination(w)).determination!);
    const { correctiveActions } = await sites.listCorrectiveActions(w);
    const have = new Set(correctiveActions.filter((c) => c.inspectionId === inspection.id).map((c) => c.findingId));
    const foundOn = inspection.report!.inspectedOn;
    const due = earliestDue(correctiveActionDeadlines({ determination: det, foundOn })) ?? operatorDue;
    for (const f of inspection.report!.findings) {
      if (!f.needsCorrectiveAction || have.has(f.id)) continue;
      await sites.openCorrectiveAction({ ...w, inspectionId: inspection.id, findingId: f.id, description: [f.location, f.description].filter(Boolean).join(": "), foundOn, dueOn: due });
    }
  }

  /** Errors the form can tell before any record is written (photos, a number, a due date). */
  async function precheck(r: SignedIn, siteId: string, form: Record<string, string>, photos: { filename: string; bytes: Buffer }[]): Promise<FieldErrors> {
    const errors: FieldErrors = new Map();
    const bad = photos.filter((p) => !imageType(p.bytes));
    if (bad.length) errors.set("photos", bad.map((p) => `"${p.filename || "a file"}" is not a JPEG, PNG, WebP or HEIC photo, so nothing was saved. Choose photos only.`));
    if ((form.rainfall_inches ?? "").trim() !== "" && !Number.isFinite(Number(form.rainfall_inches))) errors.set("rainfall_inches", ["Give the rain as a number of inches, e.g. 0.3."]);
    const needs = Object.keys(form).some((k) => /^finding_\d+_corrective$/.test(k) && form[k] === "true");
    if (needs && /^\d{4}-\d{2}-\d{2}$/.test(form.inspected_on ?? "")) {
      const det = answerOfSnapshot((await sites.getDetermination({ ...who(r), siteId })).determination!);
      if (!earliestDue(correctiveActionDeadlines({ determination: det, foundOn: form.inspected_on })) && !form.corrective_due_on) {
        errors.set("corrective_due_on", ["This service holds no corrective-action deadline from your permit: enter the date your permit sets."]);
      }
    }
    return errors;
  }

  app.get("/app/sites/:id/inspections/new", { preHandler: requireWritable }, async (req, reply) => {
    const { id } = req.params as { id: string };
    const { site } = await sites.getSite({ ...who(req as SignedIn), siteId: id }); // NotFound for another account's site
    return reply.type(HTML).send(page(chromeOf(req as SignedIn, reply.generateCsrf(), "Record an inspection"), newInspectionForm(id, site!.details!.name, reply.generateCsrf(), { inspected_on: todayOf(deps), type: "routine" })));
  });

  app.post("/app/sites/:id/inspections", { preHandler: [requireWritable, app.csrfProtection] }, async (req, reply) => {
    const r = req as SignedIn;
    const { id } = req.params as { id: string };
    const form = formOf(req);
    const photos = await filesOf(req, "photos");
    const { site } = await sites.getSite({ ...who(r), siteId: id });
    const refuse = (errors: FieldErrors) => reply.code(400).type(HTML).send(page(chromeOf(r, reply.generateCsrf(), "Record an inspection"), newInspectionForm(id, site!.details!.name, reply.generateCsrf(), form, errors)));
    const errors = await precheck(r, id, form, photos);
    if (errors.size) return refuse(errors);
    let inspection;
    try {
      inspection = (await sites.createInspectionDraft({ ...who(r), siteId: id, report: reportOf(form) })).inspection!;
    } catch (err) {
      const found = fieldErrorsOf(err, reportFieldName);
      if (found) return refuse(found);
      throw err;
    }
    for (const p of photos) await sites.addInspectionPhoto({ ...who(r), siteId: id, inspectionId: inspection.id, content: p.bytes, caption: p.filename.slice(0, 500) });
    await openCorrectiveActions(r, id, inspection, form.corrective_due_on ?? "");
    return reply.code(303).header("location", `/app/sites/${id}/inspections/${inspection.id}`).send();
  });

  app.get("/app/sites/:id/inspections/:n", { preHandler: requireSession }, async (req, reply) => {
    const r = req as SignedIn;
    const { id, n } = req.params as { id: string; n: string };
    const [{ inspections }, { site }, det] = await Promise.all([sites.listInspections({ ...who(r), siteId: id }), sites.getSite({ ...who(r), siteId: id }), sites.getDetermination({ ...who(r), siteId: id })]);
    const versions = inspections.filter((i) => i.id === n).sort((a, b) => b.version - a.version);
    if (!versions.length) throw Object.assign(new Error("no such inspection"), { statusCode: 404 });
    const latest = versions[0];
    const token = reply.generateCsrf();
    const writable = !r.appSession.readOnly && !site!.closedOn;
    const values = formOfReport(latest.report!);
    const deadlines = correctiveActionDeadlines({ determination: answerOfSnapshot(det.determination!), foundOn: latest.report!.inspectedOn });
    const draft = latest.status === InspectionStatus.DRAFT;
    const signForm = html`<h2>Sign this report</h2>
<form method="post" action="/app/sites/${id}/inspections/${n}/sign">${csrfField(token)}
<blockquote class="notice">${CERTIFICATION}</blockquote>
${checkbox({ name: "agree", label: "I agree to the statement above" }, {})}
${input({ name: "signed_by", label: "Type your full name to sign", required: true, maxlength: 200 }, {})}
<p><button type="submit">Sign the report</button></p></form>
<h2>Change the draft</h2>
<form method="post" action="/app/sites/${id}/inspections/${n}">${csrfField(token)}${reportFields(values)}<p><button type="submit" class="secondary">Save changes</button></p></form>`;
    const amendForm = html`<h2>Amend this report</h2>
<p>A signed report never changes. An amendment is a new version with your reason; this signed version stays as it is, and the amendment is signed in its turn.</p>
<form method="post" action="/app/sites/${id}/inspections/${n}/amendments">${csrfField(token)}
${textarea({ name: "reason", label: "Why it is amended", required: true }, {})}
${reportFields(values)}<p><button type="submit">Save the amendment</button></p></form>`;
    const body = html`<p><a href="/app/sites/${id}">← ${site!.details!.name}</a></p>
<h1>Inspection of ${latest.report!.inspectedOn}</h1>
<p><strong>Version ${latest.version}:</strong> ${statusWords(latest)}${latest.amendmentReason ? html`. Reason: ${latest.amendmentReason}` : ""}</p>
${reportTable(latest)}
<h2>Corrective-action deadlines for what this inspection found</h2>${deadlinesView(deadlines)}
${versions.length > 1 ? html`<h2>Earlier versions</h2><ul>${versions.slice(1).map((v) => html`<li>Version ${v.version}: ${statusWords(v)}${v.amendmentReason ? html` (reason: ${v.amendmentReason})` : ""}</li>`)}</ul>` : ""}
${writable ? (draft ? signForm : amendForm) : ""}`;
    return reply.type(HTML).send(page(chromeOf(r, token, `Inspection of ${latest.report!.inspectedOn}`), body));
  });

  app.post("/app/sites/:id/inspections/:n", { preHandler: [requireWritable, app.csrfProtection] }, async (req, reply) => {
    const r = req as SignedIn;
    const { id, n } = req.params as { id: string; n: string };
    const inspection = (await sites.updateInspectionDraft({ ...who(r), siteId: id, inspectionId: n, report: reportOf(formOf(req)) })).inspection!;
    await openCorrectiveActions(r, id, inspection, formOf(req).corrective_due_on ?? "");
    return reply.code(303).header("location", `/app/sites/${id}/inspections/${n}`).send();
  });

  app.post("/app/sites/:id/inspections/:n/sign", { preHandler: [requireWritable, app.csrfProtection] }, async (req, reply) => {
    const r = req as SignedIn;
    const { id, n } = req.params as { id: string; n: string };
    const form = formOf(req);
    const signedBy = (form.signed_by ?? "").trim();
    if (form.agree !== "true" || !signedBy) {
      const words = html`<p>To sign, tick the box to agree to the statement and type your full name. Nothing was signed.</p><p><a href="/app/sites/${id}/inspections/${n}">Back to the report</a></p>`;
      return reply.code(400).type(HTML).send(page(chromeOf(r, reply.generateCsrf(), "Not signed"), html`<h1>Not signed</h1>${words}`));
    }
    await sites.signInspection({ ...who(r), siteId: id, inspectionId: n, signedBy, certification: CERTIFICATION });
    return reply.code(303).header("location", `/app/sites/${id}/inspections/${n}`).send();
  });

  app.post("/app/sites/:id/inspections/:n/amendments", { preHandler: [requireWritable, app.csrfProtection] }, async (req, reply) => {
    const r = req as SignedIn;
    const { id, n } = req.params as { id: string; n: string };
    const form = formOf(req);
    const reason = (form.reason ?? "").trim();
    if (!reason) {
      const words = html`<p>Say why the report is amended. Nothing was saved.</p><p><a href="/app/sites/${id}/inspections/${n}">Back to the report</a></p>`;
      return reply.code(400).type(HTML).send(page(chromeOf(r, reply.generateCsrf(), "Not amended"), html`<h1>Not amended</h1>${words}`));
    }
    const inspection = (await sites.amendInspection({ ...who(r), siteId: id, inspectionId: n, reason, report: reportOf(form) })).inspection!;
    await openCorrectiveActions(r, id, inspection, form.corrective_due_on ?? "");
    return reply.code(303).header("location", `/app/sites/${id}/inspections/${n}`).send();
  });

  app.post("/app/sites/:id/corrective-actions/:n/complete", { preHandler: [requireWritable, app.csrfProtection] }, async (req, reply) => {
    const r = req as SignedIn;
    const { id, n } = req.params as { id: string; n: string };
    const form = formOf(req);
    const note = (form.note ?? "").trim();
    const completedOn = (form.completed_on ?? "").trim();
    if (!note || !completedOn) {
      const words = html`<p>Give the date it was done and say what was done. Nothing was saved.</p><p><a href="/app/sites/${id}#corrective-${n}">Back to the site</a></p>`;
      return reply.code(400).type(HTML).send(page(chromeOf(r, reply.generateCsrf(), "Not saved"), html`<h1>Not saved</h1>${words}`));
    }
    await sites.completeCorrectiveAction({ ...who(r), siteId: id, correctiveActionId: n, completedOn, note });
    return reply.code(303).header("location", `/app/sites/${id}#inspections`).send();
  });
}

function reportTable(i: Inspection): Html {
  const r = i.report!;
  const rows: [string, string][] = [
    ["Time", [r.startTime, r.endTime].filter(Boolean).join(" to ")],
    ["Inspector", [r.inspector?.name, r.inspector?.role].filter(Boolean).join(", ")],
    ["Type", r.stormTriggered === undefined ? "Other" : r.stormTriggered ? "After a storm event" : "Routine"],
    ["Rain", r.rainfallInches === undefined ? "" : `${r.rainfallInches} in.${r.rainfallSource ? ` (${r.rainfallSource})` : ""}`],
    ["Weather", r.weather],
    ["Phase of construction", r.phase],
    ["Areas unsafe to inspect", r.unsafeAreas],
  ];
  return html`<table class="stack"><tbody>${rows.filter(([, v]) => v).map(([k, v]) => html`<tr><th scope="row">${k}</th><td>${v}</td></tr>`)}
${r.summary.split("\n").filter(Boolean).map((line) => html`<tr><td colspan="2">${line}</td></tr>`)}
${r.findings.map((f) => html`<tr><th scope="row">Finding${f.location ? `: ${f.location}` : ""}</th><td>${f.description}${f.needsCorrectiveAction ? " (needs a corrective action)" : ""}</td></tr>`)}
</tbody></table>${i.photos.length ? html`<p>${i.photos.length} photo(s) kept with this report.</p>` : ""}`;
}
