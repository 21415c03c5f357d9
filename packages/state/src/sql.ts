// The SQL database a service keeps its records in (@permits/state/sql): PostgreSQL through pg when
// DATABASE_URL is set (the distributed deployment), else one SQLite file under STATE_DIR
// (embedded). The service keeps its tables, migrations and queries; only the choice and the
// opening are here. Importing this file loads no SQL driver: Kysely, pg and node:sqlite load on
// the first open (dynamic imports, held by .dependency-cruiser.cjs), so a host that never calls
// the service never pays for them; @permits/state's index does not reach this file at all.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { makeValidator } from "envalid";
import type { Kysely } from "kysely";
import { positiveInt, readEnv } from "@permits/runtime";
import { DEFAULT_STATE_DIR, stateDirPath } from "./backend.js";
import type { OpenSqliteOptions } from "./sqlite-dialect.js";

export type { OpenSqliteOptions, SqliteSync } from "./sqlite-dialect.js";

export type SqlKind = "sqlite" | "postgres";

export interface SqlDatabase<Tables> {
  db: Kysely<Tables>;
  kind: SqlKind;
}

/** Where a service's SQL records are, as readSqlBackend reads it. */
export interface SqlBackend {
  /** PostgreSQL; undefined: the SQLite file under stateDir. */
  databaseUrl: string | undefined;
  /** Absolute. */
  stateDir: string;
  /** The most connections to PostgreSQL. */
  poolSize: number;
}

const postgresUrl = makeValidator<string | undefined>((input) => {
  let u: URL;
  try {
    u = new URL(input);
    if (!u.protocol || !u.host) throw new Error();
  } catch {
    throw new Error("must be an absolute URL");
  }
  if (u.protocol !== "postgres:" && u.protocol !== "postgresql:") throw new Error("must be a postgres:// or postgresql:// URL");
  return input;
});

/** DATABASE_URL, STATE_DIR and DATABASE_POOL_SIZE, read once for a service and its tools; throws a ConfigError naming a bad one. */
export function readSqlBackend(env: NodeJS.ProcessEnv): SqlBackend {
  const v = readEnv(
    {
      DATABASE_URL: postgresUrl({ default: undefined, desc: "PostgreSQL for the records kept in SQL, the sites service's (postgres://user:password@host:5432/db); unset: a SQLite file under STATE_DIR." }),
      STATE_DIR: stateDirPath({ default: DEFAULT_STATE_DIR, desc: "Where the embedded database lives when DATABASE_URL is unset." }),
      DATABASE_POOL_SIZE: positiveInt({ default: 10, desc: "Most connections one process opens to PostgreSQL." }),
    },
    env,
  );
  return { databaseUrl: v.DATABASE_URL, stateDir: path.resolve(v.STATE_DIR), poolSize: v.DATABASE_POOL_SIZE };
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
  return { db: await openSqlite<Tables>(path.join(options.stateDir, options.file), options), kind: "sqlite" };
}

/** One SQLite file (created if new) in WAL mode, behind Kysely. */
export async function openSqlite<Tables>(file: string, options: OpenSqliteOptions = {}): Promise<Kysely<Tables>> {
  const [{ Kysely }, { NodeSqliteDialect, openSqliteFile }] = await Promise.all([import("kysely"), import("./sqlite-dialect.js")]);
  return new Kysely<Tables>({ dialect: new NodeSqliteDialect(openSqliteFile(file, options)) });
}

/**
 * Copies a live SQLite file to `target` with SQLite's online backup, page by page while other
 * connections keep writing; the copy is one consistent state. Answers the pages copied.
 */
export async function backupSqlite(file: string, target: string): Promise<number> {
  const [{ backup }, { openSqliteFile }] = await Promise.all([import("node:sqlite"), import("./sqlite-dialect.js")]);
  const source = openSqliteFile(file);
  try {
    return await backup(source, target);
  } finally {
    source.close();
  }
}

async function openPostgres<Tables>(url: string, max: number): Promise<Kysely<Tables>> {
  const [{ Kysely, PostgresDialect }, { default: pg }] = await Promise.all([import("kysely"), import("pg")]);
  const pool = new pg.Pool({ connectionString: url, max });
  // An idle connection the server drops must not take the process down with it.
  pool.on("error", () => {});
  return new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
}
