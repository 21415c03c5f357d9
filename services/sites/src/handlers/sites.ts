// Sites and their determination snapshots.
import type { ServiceImpl } from "@connectrpc/connect";
import type { SitesService } from "@permits/proto/sites/v1/sites";
import { invalidArgument, resourceNotFound, ViolationReason } from "@permits/rules";
import { appendAudit, sha256Hex } from "../audit.js";
import { changeSite, checkScoped, failedPrecondition, guard, latestDetermination, newId, readSite, type SitesContext, timestamp, today, type Trx } from "../context.js";
import { detailsJson, toDetermination, toSite } from "../convert.js";
import type { SiteRow, SitesDb } from "../db/schema.js";
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

/** Stores a stormwater answer as a new snapshot of the site; its audit entry for the caller to append. */
async function storeAnswer(trx: Trx, siteId: string, actor: string, at: string, bytes: Uint8Array, parsed: ParsedAnswer) {
  // The next number of the site's answers; the site row is locked (or SQLite's write lock held), so no other save takes it.
  const last = await trx.selectFrom("determinations").select((eb) => eb.fn.max("seq").as("seq")).where("site_id", "=", siteId).executeTakeFirst();
  const row = { id: newId("det"), site_id: siteId, seq: Number(last?.seq ?? 0) + 1, answer_json: bytes, dataset_version: parsed.datasetVersion, permit_id: parsed.permitId, permit_version: parsed.permitVersion, sha256: sha256Hex(bytes), saved_at: at, saved_by: actor };
  await trx.insertInto("determinations").values(row).execute();
  // A saved answer is worked out against the current rules: the site's rules-changed marks are settled.
  await clearRulesChanges(trx, siteId, at);
  return { row, audit: { action: "determination.saved", subjectId: row.id, detail: { sha256: row.sha256, datasetVersion: row.dataset_version, permitId: row.permit_id, permitVersion: row.permit_version } } };
}

/**
 * The columns that close an open site on `closedOn`: the date checked against today and the day
 * the site was entered, and the retention from its latest saved answer. A closed site is refused.
 */
async function closure(ctx: SitesContext, q: SitesDb | Trx, site: SiteRow, closedOn: string, at: string) {
  if (site.closed_on !== null) throw failedPrecondition(`the site was closed on ${site.closed_on}: its records are kept read-only until ${site.retain_until}`);
  const c = new Check();
  if (closedOn > today(ctx)) c.add("closedOn", `The close date (${closedOn}) must not be after today (${today(ctx)}).`);
  if (closedOn < site.created_at.slice(0, 10)) c.add("closedOn", `The close date (${closedOn}) must not be before the day the site was entered (${site.created_at.slice(0, 10)}).`);
  c.done();
  const latest = await latestDetermination(q, site.id);
  const answer = latest ? parseAnswer(new Uint8Array(latest.answer_json)) : undefined;
  const r = retentionFor(closedOn, answer?.value, answer?.permitName ?? "");
  return { closed_on: closedOn, retain_until: r.retainUntil, retention_basis: r.basis, retention_requirement_id: r.requirementId, updated_at: at };
}

export function siteHandlers(ctx: SitesContext): Handlers {
  const { db } = ctx;
  return {
    async createSite(req) {
      const c = checkCaller(new Check(), req);
      checkSiteDetails(c, req.details);
      c.done();
      const answer = req.answerJson.length > 0 ? parseAnswer(req.answerJson) : undefined;
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
          if (answer) await appendAudit(trx, row.id, req.actor, at, (await storeAnswer(trx, row.id, req.actor, at, req.answerJson, answer)).audit);
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
      const answer = req.answerJson.length > 0 ? parseAnswer(req.answerJson) : undefined;
      return changeSite(ctx, req, async (trx, site, at) => {
        const next = { name: req.details!.name.trim(), details_json: detailsJson(req.details!), updated_at: at };
        await trx.updateTable("sites").set(next).where("id", "=", site.id).execute();
        // The answer for the new details goes in with them, so the two never disagree; the same answer again is not kept twice.
        if (answer) {
          const latest = await latestDetermination(trx, site.id);
          if (latest?.sha256 !== sha256Hex(req.answerJson)) await appendAudit(trx, site.id, req.actor, at, (await storeAnswer(trx, site.id, req.actor, at, req.answerJson, answer)).audit);
        }
        return { result: { site: toSite({ ...site, ...next }) }, audit: { action: "site.updated", subjectId: site.id, detail: { details: JSON.parse(next.details_json) } } };
      });
    },

    async closeSite(req) {
      checkScoped(req, (c) => c.date("closedOn", req.closedOn));
      // A preview answers the site as it would be closed from the same rules, and writes nothing.
      if (req.preview) return readSite(ctx, req, async (site) => ({ site: toSite({ ...site, ...(await closure(ctx, db, site, req.closedOn, site.updated_at)) }) }));
      return changeSite(ctx, req, async (trx, site, at) => {
        const next = await closure(ctx, trx, site, req.closedOn, at);
        await trx.updateTable("sites").set(next).where("id", "=", site.id).execute();
        return { result: { site: toSite({ ...site, ...next }) }, audit: { action: "site.closed", subjectId: site.id, detail: { closedOn: req.closedOn, retainUntil: next.retain_until, basis: next.retention_basis } } };
      });
    },

    async saveDetermination(req) {
      checkScoped(req);
      const parsed = parseAnswer(req.answerJson);
      return changeSite(ctx, req, async (trx, site, at) => {
        const { row, audit } = await storeAnswer(trx, site.id, req.actor, at, req.answerJson, parsed);
        return { result: { determination: toDetermination(row) }, audit };
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
