// The dashboard's one read: every site of the account with the records its schedule is worked out
// from, in six queries however many sites there are (no query per site).
import type { ServiceImpl } from "@connectrpc/connect";
import { create } from "@bufbuild/protobuf";
import { type DashboardSite, DashboardSiteSchema, type SitesService } from "@permits/proto/sites/v1/sites";
import { guard, latestDeterminationIdOf, type SitesContext } from "../context.js";
import type { SiteRow, SitesDb } from "../db/schema.js";
import { toDetermination, toInspection, toRainEvent, toSite } from "../convert.js";
import { Check, checkCaller } from "../validate.js";
import { MAX_LISTED } from "./sites.js";
import { openRulesChanges } from "../alerts/rules-changed.js";

type Handlers = Pick<ServiceImpl<typeof SitesService>, "listSitesForDashboard">;

/** Groups rows by their site id. */
function bySite<R extends { site_id: string }>(rows: readonly R[]): Map<string, R[]> {
  const out = new Map<string, R[]>();
  for (const r of rows) {
    const list = out.get(r.site_id);
    if (list) list.push(r);
    else out.set(r.site_id, [r]);
  }
  return out;
}

/**
 * The given sites with the records their schedules are worked out from, in five queries (and the open rule
 * changes) however many sites there are: the dashboard's rows, and the deadline sweep's (alerts/sweep.ts).
 */
export async function sitesWithRecords(db: SitesDb, sites: readonly SiteRow[], asOf: string): Promise<DashboardSite[]> {
  if (sites.length === 0) return [];
  const ids = sites.map((s) => s.id);
  const [determinations, inspections, rain, overdue, rulesChanges] = await Promise.all([
    // Each site's latest snapshot only: the older ones can be large and are not needed.
    db
      .selectFrom("determinations as d")
      .selectAll()
      .where("d.site_id", "in", ids)
      .where("d.id", "=", latestDeterminationIdOf)
      .execute(),
    db.selectFrom("inspections").selectAll().where("site_id", "in", ids).orderBy("inspected_on").orderBy("inspection_id").orderBy("version").execute(),
    db.selectFrom("rain_events").selectAll().where("site_id", "in", ids).orderBy("occurred_on").orderBy("recorded_at").orderBy("id").execute(),
    db.selectFrom("corrective_actions").select(["site_id"]).select((eb) => eb.fn.countAll().as("n")).where("site_id", "in", ids).where("status", "=", "open").where("due_on", "<", asOf).groupBy("site_id").execute(),
    openRulesChanges(db, ids),
  ]);
  const detOf = new Map(determinations.map((d) => [d.site_id, d]));
  const inspectionsOf = bySite(inspections);
  const rainOf = bySite(rain);
  const overdueOf = new Map(overdue.map((o) => [o.site_id, Number(o.n)]));
  return sites.map((s) => {
    const rows = inspectionsOf.get(s.id) ?? [];
    const latest = new Map<string, number>();
    for (const r of rows) latest.set(r.inspection_id, Math.max(latest.get(r.inspection_id) ?? 0, Number(r.version)));
    const det = detOf.get(s.id);
    return create(DashboardSiteSchema, {
      site: toSite(s),
      determination: det && toDetermination(det),
      signedInspections: rows.filter((r) => r.status === "signed").map((r) => toInspection(r, [], latest.get(r.inspection_id)!)),
      rainEvents: (rainOf.get(s.id) ?? []).map(toRainEvent),
      overdueCorrectiveActions: overdueOf.get(s.id) ?? 0,
      rulesChanges: rulesChanges.get(s.id) ?? [],
    });
  });
}

export function dashboardHandlers(ctx: SitesContext): Handlers {
  const { db } = ctx;
  return {
    async listSitesForDashboard(req) {
      checkCaller(new Check(), req).date("asOf", req.asOf).done();
      return guard(ctx, async () => {
        const sites = await db.selectFrom("sites").selectAll().where("account_id", "=", req.accountId).orderBy("created_at", "desc").orderBy("id", "desc").limit(MAX_LISTED).execute();
        return { sites: await sitesWithRecords(db, sites, req.asOf) };
      });
    },
  };
}
