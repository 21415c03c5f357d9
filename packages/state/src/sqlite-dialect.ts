// Kysely over the SQLite built into Node (node:sqlite's DatabaseSync). Kysely ships a SQLite
// dialect for better-sqlite3's API; no kept dialect package exists for node:sqlite, so this adapts
// DatabaseSync to the interface Kysely's dialect drives, and begins every transaction IMMEDIATE:
// a deferred one that reads before writing cannot wait for another process's write lock (SQLite
// answers SQLITE_BUSY at once), which two embedded gateways on one STATE_DIR would hit.
// SQLite's DDL is transactional, which Kysely's adapter does not claim; claiming it makes the
// Migrator run the migrations in one such transaction, so processes opening a new file at once
// apply each migration once (Kysely's SQLite migration lock assumes a single process).
// Reached through ./sql.ts (the @permits/state/sql front door), never from the package's index.
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { CompiledQuery, type DatabaseConnection, type DialectAdapter, type Driver, SqliteAdapter, SqliteDialect, type SqliteDatabase, type SqliteStatement } from "kysely";

/** How long a writer waits for another connection's lock before SQLITE_BUSY. */
export const SQLITE_BUSY_TIMEOUT_MS = 10_000;
/** Prepared statements kept per connection (the service issues a few dozen distinct queries). */
const STATEMENT_CACHE = 200;

export const SQLITE_SYNC_MODES = ["normal", "full"] as const;
export type SqliteSync = (typeof SQLITE_SYNC_MODES)[number];

export interface OpenSqliteOptions {
  /** Wait for other writers this long (default SQLITE_BUSY_TIMEOUT_MS). */
  busyTimeoutMs?: number;
  /**
   * "normal" (default): a commit is in the write-ahead log before it is acknowledged, so a killed
   * process loses nothing acknowledged; a power cut may lose the last commits, never corrupt the
   * file. "full": also synced to disk before the acknowledgement, at an fsync a commit (about
   * 18 ms against 2 ms to create and sign an inspection on the development machine).
   */
  synchronous?: SqliteSync;
}

/** Opens (creating) a database file in WAL mode. */
export function openSqliteFile(file: string, options: OpenSqliteOptions = {}): DatabaseSync {
  const timeoutMs = options.busyTimeoutMs ?? SQLITE_BUSY_TIMEOUT_MS;
  const db = new DatabaseSync(file, { timeout: timeoutMs, enableForeignKeyConstraints: true });
  try {
    switchToWal(db, timeoutMs);
  } catch (e) {
    db.close();
    throw e;
  }
  db.exec(`PRAGMA synchronous = ${options.synchronous === "full" ? "FULL" : "NORMAL"}`);
  return db;
}

const SQLITE_BUSY = 5;
const WAL_RETRY_MS = 20;

/**
 * PRAGMA journal_mode = WAL, retried while another process holds the file. Processes opening a new
 * file at once race for the lock that switch needs, and SQLite answers the loser "database is
 * locked" at once, without its busy timeout (waiting could deadlock), so the wait is ours: short
 * sleeps (this runs once per open, before any query) up to the same timeout.
 */
function switchToWal(db: DatabaseSync, timeoutMs: number): void {
  const until = Date.now() + timeoutMs;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      db.exec("PRAGMA journal_mode = WAL");
      return;
    } catch (e) {
      if ((e as { errcode?: number }).errcode !== SQLITE_BUSY || Date.now() >= until) throw e;
      Atomics.wait(pause, 0, 0, WAL_RETRY_MS);
    }
  }
}

/** DatabaseSync behind the better-sqlite3-shaped interface Kysely's SqliteDialect calls. */
function adapt(db: DatabaseSync): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => db.close(),
    prepare(sql) {
      const hit = cache.get(sql);
      if (hit) return hit;
      const stmt: StatementSync = db.prepare(sql);
      const reader = stmt.columns().length > 0;
      const adapted: SqliteStatement = {
        reader,
        all: (params) => stmt.all(...(params as never[])),
        run: (params) => stmt.run(...(params as never[])),
        iterate: (params) => stmt.iterate(...(params as never[])),
      };
      if (cache.size >= STATEMENT_CACHE) cache.delete(cache.keys().next().value!);
      cache.set(sql, adapted);
      return adapted;
    },
  };
}

/** The dialect: Kysely's SQLite compiler and adapter, this file's driver. */
export class NodeSqliteDialect extends SqliteDialect {
  constructor(db: DatabaseSync) {
    super({ database: adapt(db) });
  }

  override createAdapter(): DialectAdapter {
    return new TransactionalDdlAdapter();
  }

  override createDriver(): Driver {
    const driver = super.createDriver();
    // Kysely serialises the one connection (SqliteAdapter: no multiple connections); only the
    // transaction's first statement differs from its driver.
    driver.beginTransaction = async (connection: DatabaseConnection) => {
      await connection.executeQuery(CompiledQuery.raw("begin immediate"));
    };
    return driver;
  }
}

class TransactionalDdlAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}
