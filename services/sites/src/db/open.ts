// Opens the sites database through @permits/state/sql (PostgreSQL when DATABASE_URL is set, else
// STATE_DIR/sites.sqlite) and runs the migrations before the first query.
import type { Kysely } from "kysely";
import { openSql, openSqlite as openSqliteKysely, type OpenSqliteOptions, type OpenSqlOptions } from "@permits/state/sql";
import { SITES_DB_FILE } from "./file.js";
import { migrate } from "./migrations.js";
import type { DatabaseKind, SitesDb, SitesTables } from "./schema.js";

export interface SitesDatabase {
  db: SitesDb;
  kind: DatabaseKind;
  close(): Promise<void>;
}

/** Where the database is (DATABASE_URL, STATE_DIR) and how it opens; the file name is the service's. */
export type OpenOptions = Omit<OpenSqlOptions, "file">;

export async function openSitesDatabase(options: OpenOptions): Promise<SitesDatabase> {
  const { db, kind } = await openSql<SitesTables>({ ...options, file: SITES_DB_FILE });
  return ready(db, kind);
}

/** The sites tables in the SQLite file at `file` (the tests open one by its path, such as a restored backup). */
export async function openSqlite(file: string, options: OpenSqliteOptions = {}): Promise<SitesDatabase> {
  return ready(await openSqliteKysely<SitesTables>(file, options), "sqlite");
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
