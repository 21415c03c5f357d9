// The SQL database's configuration and opening: one reading of DATABASE_URL, STATE_DIR and
// DATABASE_POOL_SIZE; no SQL driver loaded before the first open, and only the one it opens; the
// embedded file owner-only, in WAL mode, waiting for another writer's lock.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql as raw } from "kysely";
import { describe, expect, it } from "vitest";
import { openSql, readSqlBackend } from "./sql.js";

describe("readSqlBackend", () => {
  it("is the SQLite file's directory, ./.state by default, when DATABASE_URL is unset or empty", () => {
    expect(readSqlBackend({})).toEqual({ databaseUrl: undefined, stateDir: path.resolve("./.state"), poolSize: 10 });
    expect(readSqlBackend({ DATABASE_URL: "", STATE_DIR: "/var/lib/permits" })).toEqual({ databaseUrl: undefined, stateDir: "/var/lib/permits", poolSize: 10 });
  });

  it("is PostgreSQL when DATABASE_URL is set, with DATABASE_POOL_SIZE", () => {
    expect(readSqlBackend({ DATABASE_URL: "postgres://app@db:5432/permits", DATABASE_POOL_SIZE: "4" })).toEqual({ databaseUrl: "postgres://app@db:5432/permits", stateDir: path.resolve("./.state"), poolSize: 4 });
    expect(readSqlBackend({ DATABASE_URL: "postgresql://db/permits" }).databaseUrl).toBe("postgresql://db/permits");
  });

  it.each([
    [{ DATABASE_URL: "not a url" }, "DATABASE_URL: must be an absolute URL"],
    [{ DATABASE_URL: "mysql://db:3306/permits" }, "DATABASE_URL: must be a postgres:// or postgresql:// URL"],
    [{ DATABASE_POOL_SIZE: "0" }, "DATABASE_POOL_SIZE: must be a positive integer"],
    [{ STATE_DIR: "a\0b" }, "STATE_DIR: is not a valid path"],
  ])("refuses %j: %s", (env, message) => {
    expect(() => readSqlBackend(env)).toThrow(`invalid configuration: ${message}`);
  });
});

const DIST = path.resolve(import.meta.dirname, "../dist");

/** Imports the built package in a fresh process; reports which SQL drivers were resolved at each step. */
const PROBE = `
const { registerHooks } = await import("node:module");
const [dist, stateDir] = process.argv.slice(1);
const resolved = new Set();
registerHooks({ resolve(specifier, context, next) { resolved.add(specifier); return next(specifier, context); } });
const drivers = () => ["kysely", "pg", "node:sqlite"].filter((d) => resolved.has(d));
await import(dist + "/index.js");
const index = drivers();
const sql = await import(dist + "/sql.js");
const where = sql.readSqlBackend({ STATE_DIR: stateDir });
const imported = drivers();
const { db } = await sql.openSql({ ...where, file: "probe.sqlite" });
const opened = drivers();
await db.destroy();
console.log(JSON.stringify({ index, imported, opened }));
`;

describe("openSql", () => {
  it("loads no SQL driver with @permits/state or @permits/state/sql, and only Kysely and node:sqlite at the first embedded open", () => {
    if (!existsSync(path.join(DIST, "sql.js"))) throw new Error(`the built package is missing at ${DIST}: run npm run build`);
    const dir = mkdtempSync(path.join(tmpdir(), "state-sql-probe-"));
    try {
      const run = spawnSync(process.execPath, ["--no-warnings", "--input-type=module", "-e", PROBE, DIST, dir], { encoding: "utf8", cwd: path.resolve(DIST, "..") });
      expect(run.status, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual({ index: [], imported: [], opened: ["kysely", "node:sqlite"] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("makes STATE_DIR owner-only and opens the file in WAL mode; a writer waits for another's lock up to the busy timeout", async () => {
    const parent = mkdtempSync(path.join(tmpdir(), "state-sql-"));
    const stateDir = path.join(parent, "state");
    try {
      const first = await openSql<unknown>({ stateDir, file: "t.sqlite" });
      const second = await openSql<unknown>({ stateDir, file: "t.sqlite", busyTimeoutMs: 200 });
      expect(first.kind).toBe("sqlite");
      expect(statSync(stateDir).mode & 0o777).toBe(0o700);
      expect((await raw<{ journal_mode: string }>`pragma journal_mode`.execute(first.db)).rows).toEqual([{ journal_mode: "wal" }]);
      await raw`create table t (n integer)`.execute(first.db);
      // The first holds the write lock across the second's attempt (node:sqlite waits synchronously
      // in this one thread, so the lock is never released meanwhile and the wait runs out).
      const t0 = performance.now();
      const refused = await first.db.transaction().execute(async (trx) => {
        await raw`insert into t values (1)`.execute(trx);
        return second.db.transaction().execute((t2) => raw`insert into t values (2)`.execute(t2)).then(() => "written", (e: Error) => e.message);
      });
      expect(refused).toBe("database is locked");
      expect(performance.now() - t0).toBeGreaterThanOrEqual(190);
      await second.db.transaction().execute((t2) => raw`insert into t values (2)`.execute(t2));
      expect((await raw<{ n: number }>`select n from t order by n`.execute(second.db)).rows).toEqual([{ n: 1 }, { n: 2 }]);
      await first.db.destroy();
      await second.db.destroy();
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});

/** Opens one file at a given instant (argv: dist, file, epoch ms) and writes to it; prints ok or the error. */
const RACER = `
const { openSqliteFile } = await import(process.argv[1] + "/sqlite-dialect.js");
const [file, at] = process.argv.slice(2);
await new Promise((r) => setTimeout(r, Number(at) - Date.now() - 30));
while (Date.now() < Number(at)); // the last moments spun, so the six start within a millisecond
try {
  const db = openSqliteFile(file);
  db.exec("BEGIN IMMEDIATE; CREATE TABLE IF NOT EXISTS t (x); COMMIT");
  db.close();
  console.log("ok");
} catch (e) {
  console.log(e.message);
}
`;

describe("openSqliteFile", () => {
  it("opens one new file from six processes at once, every time: the switch to WAL waits out the race SQLite answers at once", async () => {
    const { spawn } = await import("node:child_process");
    const dir = mkdtempSync(path.join(tmpdir(), "state-sql-race-"));
    const racer = (file: string, at: number) =>
      new Promise<string>((resolve) => {
        const child = spawn(process.execPath, ["--no-warnings", "--input-type=module", "-e", RACER, DIST, file, String(at)], { cwd: path.resolve(DIST, "..") });
        let out = "";
        child.stdout.on("data", (d: Buffer) => (out += d.toString()));
        child.on("close", () => resolve(out.trim()));
      });
    try {
      for (let round = 0; round < 8; round++) {
        const file = path.join(dir, `race-${round}.sqlite`);
        const at = Date.now() + 400;
        const results = await Promise.all(Array.from({ length: 6 }, () => racer(file, at)));
        expect(results, `round ${round}`).toEqual(["ok", "ok", "ok", "ok", "ok", "ok"]);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
