// The deadline sweep: every so often (SITES_SWEEP_INTERVAL_MS, by the service's clock) each open
// site's deadline warnings (@permits/swppp/deadlines: the permit expiring, overdue inspections and
// corrective actions) are recorded in the outbox. Each warning's dedup key names its condition, so
// a sweep that finds what an earlier one found records nothing: one event per condition, not one per
// check. With several replicas on PostgreSQL, one sweeps at a time (a session advisory lock; the
// others skip that round), and the dedup key holds even without it. Sites are read a page at a
// time outside any transaction; each page's new events are written in one short transaction.
import { fromJsonString } from "@bufbuild/protobuf";
import { sql } from "kysely";
import { DeterminationSchema } from "@permits/proto/stormwater/v1/stormwater";
import { deadlineWarnings, type DeadlineWarning, siteSchedule } from "@permits/swppp/deadlines";
import { type SitesContext, timestamp } from "../context.js";
import type { SiteRow, SitesDb } from "../db/schema.js";
import { type NewEvent, recordEvent } from "../events/outbox.js";
import { sitesWithRecords } from "../handlers/dashboard.js";

/** The advisory lock's key: "site" "swep" in ASCII, an arbitrary constant no other lock of the database uses. */
export const SWEEP_LOCK = 0x73697465_73776570n;
/** Sites read per round trip. */
const PAGE = 200;

export interface SweepResult {
  /** False when another replica held the sweep. */
  swept: boolean;
  sites: number;
  /** Events recorded by this sweep (conditions already recorded are not counted). */
  recorded: number;
}

/** The warning's event body: what it is about, in the site's own terms. */
function eventData(site: SiteRow, w: DeadlineWarning): Record<string, unknown> {
  return { site: { id: site.id, name: site.name }, ...Object.fromEntries(Object.entries(w).filter(([k]) => k !== "type" && k !== "subject")) };
}

/** The events of one page of open sites, read outside any transaction. */
async function pageEvents(db: SitesDb, sites: SiteRow[], today: string, at: string, logger: SitesContext["logger"]): Promise<NewEvent[]> {
  const rows = await sitesWithRecords(db, sites, today);
  const overdueActions = await db.selectFrom("corrective_actions").select(["id", "site_id", "description", "due_on"]).where("site_id", "in", sites.map((s) => s.id)).where("status", "=", "open").where("due_on", "<", today).orderBy("due_on").orderBy("id").execute();
  const events: NewEvent[] = [];
  for (const [i, row] of rows.entries()) {
    const site = sites[i];
    if (!row.determination) continue;
    let warnings: DeadlineWarning[];
    try {
      const determination = fromJsonString(DeterminationSchema, new TextDecoder().decode(row.determination.answerJson), { ignoreUnknownFields: true });
      warnings = deadlineWarnings({
        determination,
        siteEndsOn: row.site?.details?.input?.endDate ?? null,
        schedule: siteSchedule(determination, row.signedInspections, row.rainEvents, today, row.site?.details?.inspectionFrequency),
        openCorrectiveActions: overdueActions.filter((c) => c.site_id === site.id).map((c) => ({ id: c.id, description: c.description, dueOn: c.due_on })),
        today,
      });
    } catch (err) {
      // One site's unreadable answer does not stop the others' warnings.
      logger?.warn({ siteId: site.id, err: err instanceof Error ? err.message : String(err) }, "sites: deadline sweep skipped a site");
      continue;
    }
    for (const w of warnings) events.push({ accountId: site.account_id, siteId: site.id, type: w.type, dedupKey: `${w.type}:${site.id}:${w.subject}`, data: eventData(site, w), at });
  }
  return events;
}

/** Every open site, a page at a time: read, then its new events recorded in one short transaction. */
async function sweepAll(ctx: SitesContext, db: SitesDb): Promise<SweepResult> {
  const at = timestamp(ctx);
  const today = at.slice(0, 10);
  let after = "";
  let sites = 0;
  let recorded = 0;
  for (;;) {
    const page = await db.selectFrom("sites").selectAll().where("closed_on", "is", null).where("id", ">", after).orderBy("id").limit(PAGE).execute();
    if (page.length === 0) break;
    sites += page.length;
    const events = await pageEvents(db, page, today, at, ctx.logger);
    if (events.length > 0) {
      recorded += await db.transaction().execute(async (trx) => {
        let n = 0;
        for (const e of events) if (await recordEvent(trx, e)) n++;
        return n;
      });
    }
    after = page[page.length - 1].id;
  }
  return { swept: true, sites, recorded };
}

/**
 * One sweep over every open site. PostgreSQL: on one connection holding a session advisory lock, so
 * one replica sweeps at a time and the others skip the round; SQLite: one process holds the file.
 */
export async function sweepDeadlines(ctx: SitesContext): Promise<SweepResult> {
  if (ctx.kind !== "postgres") return sweepAll(ctx, ctx.db);
  return ctx.db.connection().execute(async (conn) => {
    const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_lock(${SWEEP_LOCK}) as locked`.execute(conn);
    if (!rows[0]?.locked) return { swept: false, sites: 0, recorded: 0 };
    try {
      return await sweepAll(ctx, conn);
    } finally {
      await sql`select pg_advisory_unlock(${SWEEP_LOCK})`.execute(conn);
    }
  });
}

/** Sweeps now and every `intervalMs`; failures are logged and the next round tries again. Returns the stop. */
export function startSweeps(ctx: SitesContext, intervalMs: number): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  const round = () => {
    running = sweepDeadlines(ctx).then(
      (r) => { if (r.recorded > 0) ctx.logger?.info(r, "sites: deadline sweep recorded events"); },
      (err: unknown) => ctx.logger?.error({ err: err instanceof Error ? err.message : String(err) }, "sites: deadline sweep failed"),
    );
  };
  round();
  const timer = setInterval(round, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
