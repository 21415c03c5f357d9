// Inspection reports: a draft changes until it is signed; a signed version never changes (the
// database refuses too); an amendment is a new draft version with its reason, and the signed
// version it amends stays readable. Photos are added to a draft and kept with the report.
import type { ServiceImpl } from "@connectrpc/connect";
import type { InspectionReport, SitesService } from "@permits/proto/sites/v1/sites";
import { ViolationReason } from "@permits/rules";
import { canonicalJson, sha256Hex } from "../audit.js";
import { changeSite, checkScoped, failedPrecondition, newId, notFound, readSite, type SitesContext, type Trx } from "../context.js";
import { type PhotoMeta, reportJson, toInspection, toPhoto } from "../convert.js";
import { imageType } from "../content-types.js";
import type { InspectionRow, SiteRow, SitesDb } from "../db/schema.js";
import { type Check, checkReport, LIMITS } from "../validate.js";

type Handlers = Pick<
  ServiceImpl<typeof SitesService>,
  "createInspectionDraft" | "updateInspectionDraft" | "signInspection" | "amendInspection" | "listInspections" | "getInspection" | "addInspectionPhoto" | "getInspectionPhoto"
>;

const PHOTO_COLUMNS = ["id", "site_id", "inspection_id", "added_in_version", "content_type", "size_bytes", "sha256", "caption", "created_at"] as const;

/** The latest version of a report of the site, or NotFound. */
async function latestVersion(q: SitesDb | Trx, site: SiteRow, inspectionId: string): Promise<InspectionRow> {
  const row = await q.selectFrom("inspections").selectAll().where("inspection_id", "=", inspectionId).where("site_id", "=", site.id).orderBy("version", "desc").limit(1).executeTakeFirst();
  if (!row) throw notFound("inspection", inspectionId);
  return row;
}

async function draftOf(trx: Trx, site: SiteRow, inspectionId: string): Promise<InspectionRow> {
  const row = await latestVersion(trx, site, inspectionId);
  if (row.status === "signed") throw failedPrecondition(`inspection ${inspectionId} version ${row.version} is signed and cannot change: amend it to record a correction`);
  return row;
}

async function photosOf(q: SitesDb | Trx, inspectionId: string): Promise<PhotoMeta[]> {
  return q.selectFrom("photos").select(PHOTO_COLUMNS).where("inspection_id", "=", inspectionId).orderBy("added_in_version").orderBy("created_at").orderBy("id").execute();
}

function reportChecks(report: InspectionReport | undefined, extra?: (c: Check) => void) {
  return (c: Check) => {
    checkReport(c, report);
    extra?.(c);
  };
}

/** A report's content in an audit event: its hash and the facts a reader scans for. */
function reportSummary(row: Pick<InspectionRow, "version" | "report_json" | "inspected_on">): Record<string, unknown> {
  return { version: Number(row.version), inspectedOn: row.inspected_on, reportSha256: sha256Hex(row.report_json) };
}

export function inspectionHandlers(ctx: SitesContext): Handlers {
  const { db } = ctx;
  return {
    async createInspectionDraft(req) {
      checkScoped(req, reportChecks(req.report));
      return changeSite(ctx, req, async (trx, site, at) => {
        const row: InspectionRow = { inspection_id: newId("insp"), version: 1, site_id: site.id, status: "draft", inspected_on: req.report!.inspectedOn, report_json: reportJson(req.report!), amendment_reason: "", signed_by: "", certification: "", signed_at: "", report_sha256: "", created_at: at };
        await trx.insertInto("inspections").values(row).execute();
        return { result: { inspection: toInspection(row, [], 1) }, audit: { action: "inspection.drafted", subjectId: row.inspection_id, detail: reportSummary(row) } };
      });
    },

    async updateInspectionDraft(req) {
      checkScoped(req, reportChecks(req.report, (c) => c.required("inspectionId", req.inspectionId, LIMITS.id)));
      return changeSite(ctx, req, async (trx, site) => {
        const draft = await draftOf(trx, site, req.inspectionId);
        const next = { inspected_on: req.report!.inspectedOn, report_json: reportJson(req.report!) };
        await trx.updateTable("inspections").set(next).where("inspection_id", "=", draft.inspection_id).where("version", "=", draft.version).execute();
        const row = { ...draft, ...next };
        return { result: { inspection: toInspection(row, await photosOf(trx, row.inspection_id), Number(row.version)) }, audit: { action: "inspection.draft_updated", subjectId: row.inspection_id, detail: reportSummary(row) } };
      });
    },

    async signInspection(req) {
      checkScoped(req, (c) => c.required("inspectionId", req.inspectionId, LIMITS.id).required("signedBy", req.signedBy, LIMITS.name).required("certification", req.certification, LIMITS.text));
      return changeSite(ctx, req, async (trx, site, at) => {
        const draft = await draftOf(trx, site, req.inspectionId);
        const report = JSON.parse(draft.report_json) as { inspector?: { name?: string } };
        if (!report.inspector?.name) throw failedPrecondition("the report names no inspector: add the inspector's name before signing");
        const photos = await photosOf(trx, draft.inspection_id);
        // What is signed: the report, its photos' hashes and the statement, as one canonical text.
        const signed = canonicalJson({ report: JSON.parse(draft.report_json), photos: photos.filter((p) => Number(p.added_in_version) <= Number(draft.version)).map((p) => p.sha256), signedBy: req.signedBy, certification: req.certification });
        const next = { status: "signed" as const, signed_by: req.signedBy.trim(), certification: req.certification, signed_at: at, report_sha256: sha256Hex(signed) };
        await trx.updateTable("inspections").set(next).where("inspection_id", "=", draft.inspection_id).where("version", "=", draft.version).execute();
        if (site.last_inspected_on === null || draft.inspected_on > site.last_inspected_on) await trx.updateTable("sites").set({ last_inspected_on: draft.inspected_on }).where("id", "=", site.id).execute();
        const row = { ...draft, ...next };
        return { result: { inspection: toInspection(row, photos, Number(row.version)) }, audit: { action: "inspection.signed", subjectId: row.inspection_id, detail: { ...reportSummary(row), signedBy: next.signed_by, signedSha256: next.report_sha256 } } };
      });
    },

    async amendInspection(req) {
      checkScoped(req, reportChecks(req.report, (c) => c.required("inspectionId", req.inspectionId, LIMITS.id).required("reason", req.reason, LIMITS.text)));
      return changeSite(ctx, req, async (trx, site, at) => {
        const latest = await latestVersion(trx, site, req.inspectionId);
        if (latest.status !== "signed") throw failedPrecondition(`inspection ${req.inspectionId} version ${latest.version} is still a draft: change the draft instead of amending`);
        const row: InspectionRow = { inspection_id: latest.inspection_id, version: Number(latest.version) + 1, site_id: site.id, status: "draft", inspected_on: req.report!.inspectedOn, report_json: reportJson(req.report!), amendment_reason: req.reason.trim(), signed_by: "", certification: "", signed_at: "", report_sha256: "", created_at: at };
        await trx.insertInto("inspections").values(row).execute();
        return { result: { inspection: toInspection(row, await photosOf(trx, row.inspection_id), row.version) }, audit: { action: "inspection.amended", subjectId: row.inspection_id, detail: { ...reportSummary(row), amends: Number(latest.version), reason: row.amendment_reason } } };
      });
    },

    async listInspections(req) {
      checkScoped(req);
      return readSite(ctx, req, async (site) => {
        const rows = await db.selectFrom("inspections").selectAll().where("site_id", "=", site.id).orderBy("inspected_on").orderBy("inspection_id").orderBy("version").execute();
        const photos = await db.selectFrom("photos").select(PHOTO_COLUMNS).where("site_id", "=", site.id).orderBy("added_in_version").orderBy("created_at").orderBy("id").execute();
        const latest = new Map<string, number>();
        for (const r of rows) latest.set(r.inspection_id, Math.max(latest.get(r.inspection_id) ?? 0, Number(r.version)));
        return { inspections: rows.map((r) => toInspection(r, photos, latest.get(r.inspection_id)!)) };
      });
    },

    async getInspection(req) {
      checkScoped(req, (c) => {
        c.required("inspectionId", req.inspectionId, LIMITS.id);
        if (req.version !== undefined && req.version < 1) c.add("version", "version must be 1 or more", ViolationReason.MALFORMED);
      });
      return readSite(ctx, req, async (site) => {
        const latest = await latestVersion(db, site, req.inspectionId);
        const row = req.version === undefined ? latest : await db.selectFrom("inspections").selectAll().where("inspection_id", "=", req.inspectionId).where("site_id", "=", site.id).where("version", "=", req.version).executeTakeFirst();
        if (!row) throw notFound("inspection_version", `${req.inspectionId} version ${req.version}`);
        return { inspection: toInspection(row, await photosOf(db, row.inspection_id), Number(latest.version)) };
      });
    },

    async addInspectionPhoto(req) {
      const type = imageType(req.content);
      checkScoped(req, (c) => {
        c.required("inspectionId", req.inspectionId, LIMITS.id).optional("caption", req.caption, 500);
        if (req.content.length === 0) c.add("content", "content is required: the photo's bytes", ViolationReason.MISSING);
        else if (req.content.length > LIMITS.photoBytes) c.add("content", `a photo must be at most 10 MB (${LIMITS.photoBytes} bytes); this one is ${req.content.length} bytes`);
        else if (!type) c.add("content", "the photo must be a JPEG, PNG, WebP or HEIC image (checked by its content)", ViolationReason.MALFORMED, ["image/jpeg", "image/png", "image/webp", "image/heic"]);
      });
      return changeSite(ctx, req, async (trx, site, at) => {
        const draft = await draftOf(trx, site, req.inspectionId);
        const count = await trx.selectFrom("photos").select((eb) => eb.fn.countAll<number | string>().as("n")).where("inspection_id", "=", draft.inspection_id).executeTakeFirstOrThrow();
        if (Number(count.n) >= LIMITS.photosPerInspection) throw failedPrecondition(`an inspection keeps at most ${LIMITS.photosPerInspection} photos; this one has ${count.n}`);
        const row = { id: newId("photo"), site_id: site.id, inspection_id: draft.inspection_id, added_in_version: Number(draft.version), content: req.content, content_type: type!, size_bytes: req.content.length, sha256: sha256Hex(req.content), caption: req.caption, created_at: at };
        await trx.insertInto("photos").values(row).execute();
        return { result: { photo: toPhoto(row) }, audit: { action: "photo.added", subjectId: row.id, detail: { inspectionId: row.inspection_id, version: row.added_in_version, sha256: row.sha256, contentType: row.content_type, sizeBytes: row.size_bytes } } };
      });
    },

    async getInspectionPhoto(req) {
      checkScoped(req, (c) => c.required("photoId", req.photoId, LIMITS.id));
      return readSite(ctx, req, async (site) => {
        const row = await db.selectFrom("photos").selectAll().where("id", "=", req.photoId).where("site_id", "=", site.id).executeTakeFirst();
        if (!row) throw notFound("photo", req.photoId);
        return { photo: toPhoto(row), content: new Uint8Array(row.content) };
      });
    },
  };
}
