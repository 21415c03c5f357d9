import { existsSync } from "node:fs";
import path from "node:path";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import { type BuildContext, type BuiltService, positiveInt, readEnv, str } from "@permits/runtime";
import { SitesService } from "@permits/proto/sites/v1/sites";
import { readSqlBackend, type SqliteSync } from "@permits/state/sql";
import { SITES_DB_FILE } from "./db/file.js";
import type { SitesDatabase } from "./db/open.js";
import { type RunningWebhooks, WEBHOOK_ENV } from "./webhooks/env.js";

export interface BuildOptions {
  /** Open the database (and run its migrations) before answering; else on the first call. */
  eager?: boolean;
}

type Impl = ServiceImpl<typeof SitesService>;

/**
 * The sites service: PostgreSQL when DATABASE_URL is set, else STATE_DIR/sites.sqlite. Embedded,
 * nothing of it (Kysely, pg, node:sqlite, the handlers) loads before its first call; standalone
 * (main.ts) it opens at start, so a bad database stops the process there. An embedded gateway
 * restarted over a file that already holds records opens it at start too, in the background, so the
 * webhook deliveries and the deadline sweep resume without waiting for someone to use the app; over
 * none, the gateway's start-up rules check is answered without creating one (no records cite any
 * dataset version), so a deployment that never uses the app never pays for it.
 */
export async function build(ctx: BuildContext, options: BuildOptions = {}): Promise<BuiltService<typeof SitesService>> {
  const where = readSqlBackend(ctx.env);
  const env = readEnv({
    SITES_SQLITE_SYNC: str({ default: "normal", choices: ["normal", "full"], desc: "When an embedded commit is acknowledged: in the write-ahead log (normal) or synced to disk (full)." }),
    SITES_SWEEP_INTERVAL_MS: positiveInt({ default: 15 * 60 * 1000, desc: "How often the sites service records the deadline warnings of every open site (permit expiring, overdue inspections and corrective actions), by its clock." }),
    ...WEBHOOK_ENV,
  }, ctx.env);
  let loading: Promise<{ database: SitesDatabase; webhooks: RunningWebhooks | undefined; impl: Impl; stopSweeps: () => Promise<void> }> | undefined;
  const load = () =>
    (loading ??= (async () => {
      const [{ openSitesDatabase }, { createSitesService }, { startWebhooks }, { startSweeps }] = await Promise.all([import("./db/open.js"), import("./service.js"), import("./webhooks/start.js"), import("./alerts/sweep.js")]);
      const database = await openSitesDatabase({ ...where, synchronous: env.SITES_SQLITE_SYNC as SqliteSync });
      const base = { db: database.db, kind: database.kind, clock: ctx.clock, logger: ctx.logger };
      // The delivery worker and the deadline sweep start with the database: at start standalone, at the first call embedded.
      const webhooks = startWebhooks(base, { ...env, DATABASE_URL: where.databaseUrl, STATE_DIR: where.stateDir });
      return { database, webhooks, impl: createSitesService({ ...base, webhooks: webhooks?.settings }), stopSweeps: startSweeps(base, env.SITES_SWEEP_INTERVAL_MS) };
    })().catch((e: unknown) => {
      // A failed open is retried by the next call (the database may come up later).
      loading = undefined;
      ctx.logger.error({ err: e instanceof Error ? e.message : String(e) }, "sites: cannot open the database");
      throw e;
    }));
  const embeddedFile = where.databaseUrl ? undefined : path.join(where.stateDir, SITES_DB_FILE);
  const holdsNothingYet = () => loading === undefined && embeddedFile !== undefined && !existsSync(embeddedFile);
  if (options.eager) await load();
  else if (embeddedFile !== undefined && existsSync(embeddedFile)) void load().catch(() => {}); // logged by load; retried by the next call
  const impl = Object.fromEntries(
    Object.values(SitesService.method).map((m) => [m.localName, async (req: never, call: never) => (await loadOrUnavailable(load)).impl[m.localName as keyof Impl](req, call)]),
  ) as unknown as Impl;
  const cited = impl.listCitedDatasetVersions;
  impl.listCitedDatasetVersions = async (req, call) => (holdsNothingYet() ? { datasetVersions: [] } : cited(req, call));
  return {
    service: SitesService,
    impl,
    close: async () => {
      const loaded = await loading?.catch(() => undefined);
      await loaded?.stopSweeps();
      await loaded?.webhooks?.worker.stop();
      await loaded?.database.close();
    },
  };
}

async function loadOrUnavailable<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch {
    throw new ConnectError("the sites database is unavailable", Code.Unavailable);
  }
}
