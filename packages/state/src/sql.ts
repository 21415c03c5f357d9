// The SQL database a service keeps its records in (@permits/state/sql, a front door of its own so
// that importing @permits/state for Redis or LMDB never loads Kysely, pg or node:sqlite): PostgreSQL
// through pg when DATABASE_URL is set (the distributed deployment), else one SQLite file under
// STATE_DIR (embedded). The service keeps its tables, migrations and queries; only the opening is here.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { backup } from "node:sqlite";
import { Kysely, PostgresDialect } from "kysely";
import { NodeSqliteDialect, openSqliteFile, type OpenSqliteOptions } from "./sqlite-dialect.js";

export type { OpenSqliteOptions, SqliteSync } from "./sqlite-dialect.js";

export type SqlKind = "sqlite" | "postgres";

export interface SqlDatabase<Tables> {
  db: Kysely<Tables>;
  kind: SqlKind;
}

export interface OpenSqlOptions extends OpenSqliteOptions {
  /** postgres://...; absent or empty means the embedded file. */
  databaseUrl?: string;
  /** Where the embedded file lives (used when databaseUrl is absent). */
  stateDir?: string;
  /** The embedded file's name under stateDir (its -wal and -shm files sit beside it). */
  file: string;
  /** The most connections to PostgreSQL (default 10). */
  poolSize?: number;
}

/** PostgreSQL when `databaseUrl` is set, else `stateDir/file` (the directory made owner-only). */
export async function openSql<Tables>(options: OpenSqlOptions): Promise<SqlDatabase<Tables>> {
  if (options.databaseUrl) return { db: await openPostgres<Tables>(options.databaseUrl, options.poolSize ?? 10), kind: "postgres" };
  if (!options.stateDir) throw new Error(`the database ${options.file} needs DATABASE_URL or STATE_DIR`);
  mkdirSync(options.stateDir, { recursive: true, mode: 0o700 }); // holds the accounts' records: owner only, as openLmdb makes it
  return { db: openSqlite<Tables>(path.join(options.stateDir, options.file), options), kind: "sqlite" };
}

/** One SQLite file (created if new) in WAL mode, behind Kysely. */
export function openSqlite<Tables>(file: string, options: OpenSqliteOptions = {}): Kysely<Tables> {
  return new Kysely<Tables>({ dialect: new NodeSqliteDialect(openSqliteFile(file, options)) });
}

/**
 * Copies a live SQLite file to `target` with SQLite's online backup, page by page while other
 * connections keep writing; the copy is one consistent state. Answers the pages copied.
 */
export async function backupSqlite(file: string, target: string): Promise<number> {
  const source = openSqliteFile(file);
  try {
    return await backup(source, target);
  } finally {
    source.close();
  }
}

async function openPostgres<Tables>(url: string, max: number): Promise<Kysely<Tables>> {
  // pg is loaded only here: the embedded deployment never pays for it.
  const { default: pg } = await import("pg");
  const pool = new pg.Pool({ connectionString: url, max });
  // An idle connection the server drops must not take the process down with it.
  pool.on("error", () => {});
  return new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
}
