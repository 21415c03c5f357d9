// Plan document versions: stored whole (DOCX and PDF), never changed, listed without their bytes.
import type { ServiceImpl } from "@connectrpc/connect";
import { PlanFormat, type SitesService } from "@permits/proto/sites/v1/sites";
import { ViolationReason } from "@permits/rules";
import { sha256Hex } from "../audit.js";
import { changeSite, checkScoped, newId, notFound, readSite, type SitesContext } from "../context.js";
import { toPlanVersion } from "../convert.js";
import { isPdf, isZip } from "../content-types.js";
import { type Check, LIMITS } from "../validate.js";

type Handlers = Pick<ServiceImpl<typeof SitesService>, "addPlanVersion" | "listPlanVersions" | "getPlanDocument">;

const FORMATS = { [PlanFormat.DOCX]: { column: "docx", type: "application/vnd.openxmlformats-officedocument.wordprocessingml.document" }, [PlanFormat.PDF]: { column: "pdf", type: "application/pdf" } } as const;

function checkDocument(c: Check, field: string, bytes: Uint8Array, looksRight: (b: Uint8Array) => boolean, what: string): void {
  if (bytes.length === 0) c.add(field, `${field} is required: the plan as ${what}`, ViolationReason.MISSING);
  else if (bytes.length > LIMITS.planBytes) c.add(field, `${field} must be at most ${LIMITS.planBytes} bytes (got ${bytes.length})`);
  else if (!looksRight(bytes)) c.add(field, `${field} is not ${what}`);
}

export function planHandlers(ctx: SitesContext): Handlers {
  const { db } = ctx;
  return {
    async addPlanVersion(req) {
      checkScoped(req, (c) => {
        checkDocument(c, "docx", req.docx, isZip, "a Word document (.docx)");
        checkDocument(c, "pdf", req.pdf, isPdf, "a PDF");
        c.optional("note", req.note, LIMITS.text).optional("determinationId", req.determinationId, LIMITS.id);
      });
      return changeSite(ctx, req, async (trx, site, at) => {
        if (req.determinationId !== "") {
          const det = await trx.selectFrom("determinations").select("id").where("id", "=", req.determinationId).where("site_id", "=", site.id).executeTakeFirst();
          if (!det) throw notFound("determination", req.determinationId);
        }
        const last = await trx.selectFrom("plan_versions").select("version").where("site_id", "=", site.id).orderBy("version", "desc").limit(1).executeTakeFirst();
        const row = {
          id: newId("plan"),
          site_id: site.id,
          version: (last ? Number(last.version) : 0) + 1,
          note: req.note,
          determination_id: req.determinationId,
          docx: req.docx,
          pdf: req.pdf,
          docx_size: req.docx.length,
          pdf_size: req.pdf.length,
          docx_sha256: sha256Hex(req.docx),
          pdf_sha256: sha256Hex(req.pdf),
          created_at: at,
          created_by: req.actor,
        };
        await trx.insertInto("plan_versions").values(row).execute();
        return { result: { plan: toPlanVersion(row) }, audit: { action: "plan.added", subjectId: row.id, detail: { version: row.version, docxSha256: row.docx_sha256, pdfSha256: row.pdf_sha256, determinationId: row.determination_id, note: row.note } } };
      });
    },

    async listPlanVersions(req) {
      checkScoped(req);
      return readSite(ctx, req, async (site) => {
        const rows = await db.selectFrom("plan_versions").select(["id", "site_id", "version", "note", "determination_id", "docx_size", "pdf_size", "docx_sha256", "pdf_sha256", "created_at", "created_by"]).where("site_id", "=", site.id).orderBy("version").execute();
        return { plans: rows.map(toPlanVersion) };
      });
    },

    async getPlanDocument(req) {
      checkScoped(req, (c) => {
        c.required("planId", req.planId, LIMITS.id);
        if (!(req.format in FORMATS)) c.add("format", "format must be DOCX or PDF", ViolationReason.MISSING, ["PLAN_FORMAT_DOCX", "PLAN_FORMAT_PDF"]);
      });
      const format = FORMATS[req.format as PlanFormat.DOCX | PlanFormat.PDF];
      return readSite(ctx, req, async (site) => {
        const row = await db.selectFrom("plan_versions").select([format.column]).where("id", "=", req.planId).where("site_id", "=", site.id).executeTakeFirst();
        if (!row) throw notFound("plan_version", req.planId);
        const content = new Uint8Array((row as Record<string, Uint8Array>)[format.column]!);
        return { content, contentType: format.type, sha256: sha256Hex(content) };
      });
    },
  };
}
