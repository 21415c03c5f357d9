// Test support (no vitest import, so it also compiles): the two databases every suite runs
// against. SQLite in a temp file; PostgreSQL in a database of its own, created with a random name
// and dropped afterwards. When PostgreSQL cannot be reached, `postgresKind()` answers undefined
// and says so on the console, as the Redis suites do.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { openSitesDatabase, openSqlite, type SitesDatabase } from "./db/open.js";

export { openSitesDatabase, type SitesDatabase };
export type { DatabaseKind, SitesDb } from "./db/schema.js";

/** The server the PostgreSQL half runs against (its maintenance database; tests make their own). */
export const TEST_POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export interface DbKind {
  name: "sqlite" | "postgres";
  /** A fresh, empty, migrated database. */
  open(): Promise<SitesDatabase>;
  /** What `open` would reach a second time (another process's view of the same database). */
  url(): string;
  /** Closes what `open` opened and deletes the database. */
  cleanup(): Promise<void>;
}

export async function sqliteKind(): Promise<DbKind> {
  const dir = await mkdtemp(path.join(tmpdir(), "sites-sqlite-"));
  const opened: SitesDatabase[] = [];
  const file = path.join(dir, "sites.sqlite");
  return {
    name: "sqlite",
    url: () => file,
    async open() {
      const db = await openSqlite(file);
      opened.push(db);
      return db;
    },
    async cleanup() {
      for (const d of opened) await d.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function adminQuery(text: string): Promise<void> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL, connectionTimeoutMillis: 2000 });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** A fresh PostgreSQL database, or undefined (with a console line) when the server cannot be reached. */
export async function postgresKind(): Promise<DbKind | undefined> {
  const name = `sites_test_${randomBytes(6).toString("hex")}`;
  try {
    await adminQuery(`CREATE DATABASE ${name}`);
  } catch (e) {
    console.log(`PostgreSQL not reachable at ${TEST_POSTGRES_URL} (${(e as Error).message}): skipping the PostgreSQL half`);
    return undefined;
  }
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  const opened: SitesDatabase[] = [];
  return {
    name: "postgres",
    url: () => url.toString(),
    async open() {
      const db = await openSitesDatabase({ databaseUrl: url.toString(), poolSize: 4 });
      opened.push(db);
      return db;
    },
    async cleanup() {
      for (const d of opened) await d.close();
      await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/** A webhook receiver on 127.0.0.1 that records what it gets (the app's tests post to it). */
export { type Received, type Receiver, startReceiver, webhookHeaders } from "./webhooks/fake-receiver.js";
