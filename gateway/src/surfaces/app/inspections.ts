// Inspection reports and corrective actions: record (with photos), read any version, change a
// draft (photos may be added to it too, so one that did not arrive can be sent again), sign, amend
// a signed one (a new version with the reason and any photos added; the signed one stays), and
// close a corrective action. A finding marked as needing a corrective action opens one, due on the
// deadline of the permit rule the person chose for it (the earliest unless they chose another), or
// on the date the operator enters where the permit holds none.
import type { FastifyInstance, FastifyReply } from "fastify";
import type { Inspection } from "@permits/proto/sites/v1/sites";
import type { AppDeps } from "../../deps.js";
import { html } from "./html.js";
import { chromeOf, page } from "./layout.js";
import { formOf, requireSession, requireWritable, type SignedIn } from "./context.js";
import { fieldErrorsOf, type FieldErrors } from "./form.js";
import { FINDING_ROWS, formOfReport, reportFieldName, reportOf } from "./report-form.js";
import { answerOfSnapshot, todayOf, who, type SitesClient } from "./site-records.js";
import { CERTIFICATION } from "./inspections-view.js";
import { correctiveChoice, dueOf, type CorrectiveChoice } from "./corrective-choice.js";
import { inspectionPage, newInspectionForm } from "./inspection-page.js";
import { openSiteForm, refuseIfClosed, sendClosed, sendPage, sitePost } from "./site-pages.js";
import { keepPhotos, photoErrors, photoRoutes, photosOf, type SentPhoto } from "./photos.js";

const HTML = "text/html; charset=utf-8";
const NEW_TITLE = "Record an inspection";

export function inspectionRoutes(app: FastifyInstance, deps: AppDeps): void {
  const sites: SitesClient = deps.clients.sites;
  photoRoutes(app, deps);

  async function choiceFor(r: SignedIn, siteId: string, foundOn: string): Promise<CorrectiveChoice> {
    const det = answerOfSnapshot((await sites.getDetermination({ ...who(r), siteId })).determination!);
    return correctiveChoice(det, foundOn, todayOf(deps));
  }

  /** The report's findings that have a corrective action already (they need no deadline chosen). */
  async function actionsOf(r: SignedIn, siteId: string, inspectionId: string) {
    return (await sites.listCorrectiveActions({ ...who(r), siteId })).correctiveActions.filter((c) => c.inspectionId === inspectionId);
  }

  /** Errors the form can tell before any record is written: photos, the rain, each finding's deadline. */
  function precheck(form: Record<string, string>, choice: CorrectiveChoice, photos: readonly SentPhoto[], photosHeld: number, opened: ReadonlySet<string>): FieldErrors {
    const errors = photoErrors(photos, photosHeld);
    if ((form.rainfall_inches ?? "").trim() !== "" && !Number.isFinite(Number(form.rainfall_inches))) errors.set("rainfall_inches", ["Give the rain as a number of inches, e.g. 0.3."]);
    for (let n = 1; n <= FINDING_ROWS; n++) {
      const written = (form[`finding_${n}_description`] ?? "").trim() || (form[`finding_${n}_location`] ?? "").trim();
      if (form[`finding_${n}_corrective`] !== "true" || !written || opened.has(`f${n}`)) continue;
      const due = dueOf(n, choice, form);
      if ("field" in due) errors.set(due.field, [due.error]);
    }
    return errors;
  }

  /** Opens a corrective action for each finding that needs one and has none yet (prechecked). */
  async function openCorrectiveActions(r: SignedIn, siteId: string, inspection: Inspection, form: Record<string, string>, choice: CorrectiveChoice): Promise<void> {
    const have = new Set((await actionsOf(r, siteId, inspection.id)).map((c) => c.findingId));
    for (const f of inspection.report!.findings) {
      if (!f.needsCorrectiveAction || have.has(f.id)) continue;
      const due = dueOf(Number(f.id.slice(1)), choice, form);
      if ("field" in due) throw new Error(`finding ${f.id}: ${due.error}`);
      await sites.openCorrectiveAction({ ...who(r), siteId, inspectionId: inspection.id, findingId: f.id, description: [f.location, f.description].filter(Boolean).join(": "), foundOn: inspection.report!.inspectedOn, ...due });
    }
  }

  /** A report's page: the version asked for (the latest by default), with a refused change's values and errors. */
  async function showReport(r: SignedIn, reply: FastifyReply, siteId: string, n: string, status: number, version?: number, change?: { values: Record<string, string>; errors: FieldErrors }) {
    const [{ inspections }, { site }] = await Promise.all([sites.listInspections({ ...who(r), siteId }), sites.getSite({ ...who(r), siteId })]);
    const versions = inspections.filter((i) => i.id === n).sort((a, b) => b.version - a.version);
    const shown = version === undefined ? versions[0] : versions.find((v) => v.version === version);
    if (!shown) throw Object.assign(new Error("no such inspection"), { statusCode: 404 });
    const values = change?.values ?? formOfReport(versions[0].report!);
    const token = reply.generateCsrf();
    const body = inspectionPage({
      siteId,
      siteName: site!.details!.name,
      token,
      versions,
      shown,
      writable: !r.appSession.readOnly && !site!.closedOn,
      choice: await choiceFor(r, siteId, values.inspected_on ?? shown.report!.inspectedOn),
      actions: await actionsOf(r, siteId, n),
      values,
      errors: change?.errors,
    });
    return reply.code(status).type(HTML).send(page(chromeOf(r, token, `Inspection of ${shown.report!.inspectedOn}`), body));
  }

  openSiteForm(app, sites, "/app/sites/:id/inspections/new", NEW_TITLE, async (site, token, r) => {
    const today = todayOf(deps);
    return newInspectionForm(site.id, site.details!.name, token, await choiceFor(r, site.id, today), { inspected_on: today, type: "routine" });
  });

  app.post("/app/sites/:id/inspections", { preHandler: [requireWritable, app.csrfProtection] }, async (req, reply) => {
    const { r, id, site, form } = await sitePost(sites, req);
    if (site.closedOn) return sendClosed(r, reply, site, NEW_TITLE);
    const photos = await photosOf(req);
    const choice = await choiceFor(r, id, form.inspected_on ?? "");
    const refuse = (errors: FieldErrors) => sendPage(r, reply, NEW_TITLE, (token) => newInspectionForm(id, site.details!.name, token, choice, form, errors), 400);
    const errors = precheck(form, choice, photos, 0, new Set());
    if (errors.size) return refuse(errors);
    let inspection;
    try {
      inspection = (await sites.createInspectionDraft({ ...who(r), siteId: id, report: reportOf(form) })).inspection!;
    } catch (err) {
      const found = fieldErrorsOf(err, reportFieldName);
      if (found) return refuse(found);
      throw err;
    }
    await keepPhotos(sites, r, id, inspection.id, photos);
    await openCorrectiveActions(r, id, inspection, form, choice);
    return reply.code(303).header("location", `/app/sites/${id}/inspections/${inspection.id}`).send();
  });

  app.get("/app/sites/:id/inspections/:n", { preHandler: requireSession }, async (req, reply) => {
    const { id, n } = req.params as { id: string; n: string };
    const asked = (req.query as { version?: string }).version;
    const version = asked === undefined ? undefined : /^[1-9]\d{0,5}$/.test(asked) ? Number(asked) : 0;
    return showReport(req as SignedIn, reply, id, n, 200, version);
  });

  /** A draft's change or an amendment: checked, then kept with its photos and corrective actions. */
  async function change(req: SignedIn, reply: FastifyReply, write: (form: Record<string, string>) => Promise<Inspection>, amending: boolean) {
    const { id, n } = req.params as { id: string; n: string };
    const form = formOf(req);
    const photos = await photosOf(req);
    const latest = (await sites.getInspection({ ...who(req), siteId: id, inspectionId: n })).inspection!;
    const choice = await choiceFor(req, id, form.inspected_on ?? "");
    const opened = new Set((await actionsOf(req, id, n)).map((c) => c.findingId));
    const errors = precheck(form, choice, photos, latest.photos.length, opened);
    if (amending && !(form.reason ?? "").trim()) errors.set("reason", ["Say why the report is amended."]);
    if (errors.size) return showReport(req, reply, id, n, 400, undefined, { values: form, errors });
    let inspection;
    try {
      inspection = await write(form);
    } catch (err) {
      const found = fieldErrorsOf(err, reportFieldName);
      if (found) return showReport(req, reply, id, n, 400, undefined, { values: form, errors: found });
      throw err;
    }
    await keepPhotos(sites, req, id, n, photos);
    await openCorrectiveActions(req, id, inspection, form, choice);
    return reply.code(303).header("location", `/app/sites/${id}/inspections/${n}`).send();
  }

  // A closed site's records cannot change: a stale page's change gets the closed notice.
  const closedGuard = refuseIfClosed(sites, "Cannot be changed");

  app.post("/app/sites/:id/inspections/:n", { preHandler: [requireWritable, app.csrfProtection, closedGuard] }, async (req, reply) => {
    const r = req as SignedIn;
    const { id, n } = req.params as { id: string; n: string };
    return change(r, reply, async (form) => (await sites.updateInspectionDraft({ ...who(r), siteId: id, inspectionId: n, report: reportOf(form) })).inspection!, false);
  });

  app.post("/app/sites/:id/inspections/:n/sign", { preHandler: [requireWritable, app.csrfProtection, closedGuard] }, async (req, reply) => {
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

  app.post("/app/sites/:id/inspections/:n/amendments", { preHandler: [requireWritable, app.csrfProtection, closedGuard] }, async (req, reply) => {
    const r = req as SignedIn;
    const { id, n } = req.params as { id: string; n: string };
    return change(r, reply, async (form) => (await sites.amendInspection({ ...who(r), siteId: id, inspectionId: n, reason: (form.reason ?? "").trim(), report: reportOf(form) })).inspection!, true);
  });

  app.post("/app/sites/:id/corrective-actions/:n/complete", { preHandler: [requireWritable, app.csrfProtection, closedGuard] }, async (req, reply) => {
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

