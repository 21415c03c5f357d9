// Opens the sites database: PostgreSQL when DATABASE_URL is set (the distributed deployment),
// else one SQLite file under STATE_DIR (embedded). Either way the migrations run before the
// first query. Kept apart from the handlers so it may move to packages/state with the others.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { Kysely, PostgresDialect } from "kysely";
import { SITES_DB_FILE } from "./file.js";
import { migrate } from "./migrations.js";
import type { DatabaseKind, SitesDb, SitesTables } from "./schema.js";
import { NodeSqliteDialect, openSqliteFile, type OpenSqliteOptions } from "./sqlite.js";


export interface SitesDatabase {
  db: SitesDb;
  kind: DatabaseKind;
  close(): Promise<void>;
}

export interface OpenOptions extends OpenSqliteOptions {
  /** postgres://...; absent or empty means the embedded file. */
  databaseUrl?: string;
  /** Where the embedded file lives (used when databaseUrl is absent). */
  stateDir?: string;
  /** The most connections to PostgreSQL (default 10). */
  poolSize?: number;
}

export async function openSitesDatabase(options: OpenOptions): Promise<SitesDatabase> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options.poolSize ?? 10);
  if (!options.stateDir) throw new Error("the sites database needs DATABASE_URL or STATE_DIR");
  mkdirSync(options.stateDir, { recursive: true, mode: 0o700 }); // holds the accounts' records: owner only, as packages/state makes it
  return openSqlite(path.join(options.stateDir, SITES_DB_FILE), options);
}

export async function openSqlite(file: string, options: OpenSqliteOptions = {}): Promise<SitesDatabase> {
  const raw = openSqliteFile(file, options);
  const db = new Kysely<SitesTables>({ dialect: new NodeSqliteDialect(raw) });
  return ready(db, "sqlite");
}

async function openPostgres(url: string, max: number): Promise<SitesDatabase> {
  // pg is loaded only here: the embedded deployment never pays for it.
  const { default: pg } = await import("pg");
  const pool = new pg.Pool({ connectionString: url, max });
  // An idle connection the server drops must not take the process down with it.
  pool.on("error", () => {});
  const db = new Kysely<SitesTables>({ dialect: new PostgresDialect({ pool }) });
  return ready(db, "postgres");
}

async function ready(db: SitesDb, kind: DatabaseKind): Promise<SitesDatabase> {
  try {
    await migrate(db as Kysely<unknown>, kind);
  } catch (e) {
    await db.destroy();
    throw e;
  }
  return { db, kind, close: () => db.destroy() };
}
