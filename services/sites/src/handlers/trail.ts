// The audit trail, the export, and the purge of records whose retention has ended.
import type { ServiceImpl } from "@connectrpc/connect";
import type { SitesService } from "@permits/proto/sites/v1/sites";
import { sha256Hex, verifyChain } from "../audit.js";
import { checkScoped, guard, readSite, type SitesContext, today } from "../context.js";
import { RECORD_TABLES } from "../db/schema.js";
import { deleteSiteDeliveries } from "../webhooks/queue.js";
import { Check, LIMITS } from "../validate.js";

type Handlers = Pick<ServiceImpl<typeof SitesService>, "listAuditEvents" | "exportSite" | "purgeExpired">;

/**
 * Deletes every record of each site whose retain_until is before `asOf`, children first, one site
 * per transaction. The database's triggers allow these deletes only because retention has ended
 * by its own clock too; a site they refuse stays whole (its transaction rolls back).
 */
export async function purgeExpired(ctx: SitesContext, asOf: string): Promise<string[]> {
  const due = await ctx.db.selectFrom("sites").select("id").where("retain_until", "is not", null).where("retain_until", "<", asOf).orderBy("id").execute();
  const purged: string[] = [];
  for (const { id } of due) {
    await ctx.db.transaction().execute(async (trx) => {
      for (const table of RECORD_TABLES) await trx.deleteFrom(table).where("site_id", "=", id).execute();
      await deleteSiteDeliveries(trx, id);
      await trx.deleteFrom("site_events").where("site_id", "=", id).execute();
      await trx.deleteFrom("site_rules_changes").where("site_id", "=", id).execute();
      await trx.deleteFrom("sites").where("id", "=", id).execute();
    });
    purged.push(id);
  }
  return purged;
}

export function trailHandlers(ctx: SitesContext): Handlers {
  const { db } = ctx;
  return {
    async listAuditEvents(req) {
      checkScoped(req);
      return readSite(ctx, req, async (site) => {
        const rows = await db.selectFrom("audit_events").selectAll().where("site_id", "=", site.id).orderBy("seq").execute();
        const chain = verifyChain(rows);
        return {
          events: rows.map((e) => ({ seq: BigInt(e.seq), at: e.at, actor: e.actor, action: e.action, subjectId: e.subject_id, detailJson: e.detail_json, prevHash: e.prev_hash, hash: e.hash })),
          chainIntact: chain.intact,
          firstBrokenSeq: BigInt(chain.firstBrokenSeq),
        };
      });
    },

    async exportSite(req) {
      checkScoped(req);
      // The ZIP writer (fflate) loads with the first export, not with the service.
      const { exportFiles, zipFiles } = await import("../export.js");
      return readSite(ctx, req, async (site) => {
        // One snapshot of the site: a change between two reads cannot split the export.
        const tx = ctx.kind === "postgres" ? db.transaction().setIsolationLevel("repeatable read") : db.transaction();
        const files = await tx.execute((trx) => exportFiles(trx, site));
        const zip = zipFiles(files);
        return { zip, fileName: `${site.id}-export.zip`, sha256: sha256Hex(zip) };
      });
    },

    async purgeExpired(req) {
      new Check().required("actor", req.actor, LIMITS.actor).done();
      const purged = await guard(ctx, () => purgeExpired(ctx, today(ctx)));
      ctx.logger?.info({ actor: req.actor, sites: purged.length }, "sites: purged records whose retention ended");
      return { purgedSiteIds: purged };
    },
  };
}
