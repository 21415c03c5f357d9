// Sites and their determination snapshots.
import type { ServiceImpl } from "@connectrpc/connect";
import type { SitesService } from "@permits/proto/sites/v1/sites";
import { invalidArgument, resourceNotFound, ViolationReason } from "@permits/rules";
import { appendAudit, sha256Hex } from "../audit.js";
import { changeSite, checkScoped, guard, latestDetermination, newId, readSite, type SitesContext, timestamp, today } from "../context.js";
import { detailsJson, toDetermination, toSite } from "../convert.js";
import type { SiteRow } from "../db/schema.js";
import { retentionFor } from "../retention.js";
import { Check, checkCaller, checkSiteDetails, LIMITS } from "../validate.js";
import { clearRulesChanges } from "../alerts/rules-changed.js";

type Handlers = Pick<ServiceImpl<typeof SitesService>, "createSite" | "getSite" | "listSites" | "updateSite" | "closeSite" | "saveDetermination" | "getDetermination">;

/** The most sites one list answers (newest first); an account with more pages by closing old ones. */
export const MAX_LISTED = 1000;

interface ParsedAnswer {
  value: unknown;
  datasetVersion: string;
  permitId: string;
  permitVersion: string;
  permitName: string;
}

/** Reads the stormwater answer enough to index it; the bytes are stored as given. */
function parseAnswer(bytes: Uint8Array): ParsedAnswer {
  const bad = (description: string, reason = ViolationReason.MALFORMED) => invalidArgument(description, [{ field: "answerJson", description, reason }]);
  if (bytes.length === 0) throw bad("answerJson is required: the stormwater answer's JSON", ViolationReason.MISSING);
  if (bytes.length > LIMITS.answerBytes) throw bad(`answerJson must be at most ${LIMITS.answerBytes} bytes (got ${bytes.length})`);
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw bad("answerJson is not JSON text");
  }
  const o = value as { datasetVersion?: unknown; permit?: { id?: unknown; version?: unknown; name?: unknown } | null } | null;
  if (o === null || typeof o !== "object" || Array.isArray(o)) throw bad("answerJson must be a stormwater determination (a JSON object)");
  const text = (v: unknown) => typeof v === "string" && v !== "" && v.length <= LIMITS.shortText && !v.includes("\u0000");
  if (!text(o.datasetVersion)) throw bad("answerJson has no datasetVersion: save the determination as the stormwater service answered it", ViolationReason.MISSING);
  const permit = o.permit ?? null;
  if (permit !== null && (typeof permit !== "object" || !text(permit.id) || !text(permit.version))) throw bad("answerJson's permit must have an id and a version");
  return { value, datasetVersion: o.datasetVersion as string, permitId: (permit?.id as string) ?? "", permitVersion: (permit?.version as string) ?? "", permitName: text(permit?.name) ? (permit!.name as string) : "" };
}

export function siteHandlers(ctx: SitesContext): Handlers {
  const { db } = ctx;
  return {
    async createSite(req) {
      const c = checkCaller(new Check(), req);
      checkSiteDetails(c, req.details);
      c.done();
      const at = timestamp(ctx);
      const row: SiteRow = {
        id: newId("site"),
        account_id: req.accountId,
        name: req.details!.name.trim(),
        details_json: detailsJson(req.details!),
        created_at: at,
        updated_at: at,
        closed_on: null,
        retain_until: null,
        retention_basis: null,
        retention_requirement_id: null,
        last_inspected_on: null,
      };
      return guard(ctx, () =>
        db.transaction().execute(async (trx) => {
          await trx.insertInto("sites").values(row).execute();
          await appendAudit(trx, row.id, req.actor, at, { action: "site.created", subjectId: row.id, detail: { details: JSON.parse(row.details_json) } });
          return { site: toSite(row) };
        }),
      );
    },

    async getSite(req) {
      checkScoped(req);
      return readSite(ctx, req, async (site) => ({ site: toSite(site) }));
    },

    async listSites(req) {
      checkCaller(new Check(), req).done();
      const rows = await guard(ctx, () => db.selectFrom("sites").selectAll().where("account_id", "=", req.accountId).orderBy("created_at", "desc").orderBy("id", "desc").limit(MAX_LISTED).execute());
      return { sites: rows.map(toSite) };
    },

    async updateSite(req) {
      checkScoped(req, (c) => checkSiteDetails(c, req.details));
      return changeSite(ctx, req, async (trx, site, at) => {
        const next = { name: req.details!.name.trim(), details_json: detailsJson(req.details!), updated_at: at };
        await trx.updateTable("sites").set(next).where("id", "=", site.id).execute();
        return { result: { site: toSite({ ...site, ...next }) }, audit: { action: "site.updated", subjectId: site.id, detail: { details: JSON.parse(next.details_json) } } };
      });
    },

    async closeSite(req) {
      checkScoped(req, (c) => c.date("closedOn", req.closedOn));
      return changeSite(ctx, req, async (trx, site, at) => {
        const c = new Check();
        if (req.closedOn > today(ctx)) c.add("closedOn", `closedOn (${req.closedOn}) must not be after today (${today(ctx)})`);
        if (req.closedOn < site.created_at.slice(0, 10)) c.add("closedOn", `closedOn (${req.closedOn}) must not be before the site was created (${site.created_at.slice(0, 10)})`);
        c.done();
        const latest = await trx.selectFrom("determinations").select(["answer_json"]).where("site_id", "=", site.id).orderBy("saved_at", "desc").orderBy("id", "desc").limit(1).executeTakeFirst();
        const answer = latest ? parseAnswer(new Uint8Array(latest.answer_json)) : undefined;
        const r = retentionFor(req.closedOn, answer?.value, answer?.permitName ?? "");
        const next = { closed_on: req.closedOn, retain_until: r.retainUntil, retention_basis: r.basis, retention_requirement_id: r.requirementId, updated_at: at };
        await trx.updateTable("sites").set(next).where("id", "=", site.id).execute();
        return { result: { site: toSite({ ...site, ...next }) }, audit: { action: "site.closed", subjectId: site.id, detail: { closedOn: req.closedOn, retainUntil: r.retainUntil, basis: r.basis } } };
      });
    },

    async saveDetermination(req) {
      checkScoped(req);
      const parsed = parseAnswer(req.answerJson);
      return changeSite(ctx, req, async (trx, site, at) => {
        const row = { id: newId("det"), site_id: site.id, answer_json: req.answerJson, dataset_version: parsed.datasetVersion, permit_id: parsed.permitId, permit_version: parsed.permitVersion, sha256: sha256Hex(req.answerJson), saved_at: at, saved_by: req.actor };
        await trx.insertInto("determinations").values(row).execute();
        await clearRulesChanges(trx, site.id, at);
        return { result: { determination: toDetermination(row) }, audit: { action: "determination.saved", subjectId: row.id, detail: { sha256: row.sha256, datasetVersion: row.dataset_version, permitId: row.permit_id, permitVersion: row.permit_version } } };
      });
    },

    async getDetermination(req) {
      checkScoped(req);
      return readSite(ctx, req, async (site) => {
        const row = await latestDetermination(db, site.id);
        if (!row) throw resourceNotFound(`site ${site.id} has no saved determination yet`, "determination", site.id, []);
        return { determination: toDetermination(row) };
      });
    },
  };
}
