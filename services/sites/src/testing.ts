// Test support of @permits/sites (left out of the build; `./testing` for the tests outside the
// package): the two databases every suite runs against, SQLite in a temp file and PostgreSQL in a
// database of its own (created with a random name, dropped afterwards; when PostgreSQL cannot be
// reached, `postgresKind()` answers undefined and says so on the console, as the Redis suites do),
// `eachDatabase` that runs a suite unchanged on both, concrete sites, reports, images and
// stormwater answers, and a webhook receiver.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, inject, it } from "vitest";
import { type MessageInitShape } from "@bufbuild/protobuf";
import { type Client, Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { ManualClock } from "@permits/runtime";
import { type InspectionReportSchema, type SiteDetailsSchema, SitesService } from "@permits/proto/sites/v1/sites";
import { openSitesDatabase, openSqlite, type SitesDatabase } from "./db/open.js";
import { createSitesService } from "./service.js";

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

export const NOW = "2026-11-28T12:00:00.000Z";
export const ACCOUNT = "acct_reyes";
export const OTHER_ACCOUNT = "acct_other";
export const ACTOR = "key_live_1 (Dana Reyes)";

export interface Harness {
  client: Client<typeof SitesService>;
  clock: ManualClock;
  database: SitesDatabase;
  kind: DbKind;
}

/** Runs `body` once per database; `h()` is that database's harness (valid inside tests and hooks). */
export function eachDatabase(body: (h: () => Harness) => void): void {
  const pgUp = inject("prerequisites").postgres;
  const makers: Array<{ name: string; make: () => Promise<DbKind | undefined> }> = [{ name: "sqlite", make: sqliteKind }, ...(pgUp ? [{ name: "postgres", make: postgresKind }] : [])];
  if (!pgUp) it.skip("the PostgreSQL half (no PostgreSQL answers: see the run's opening lines)", () => {});
  describe.each(makers)("on $name", ({ name, make }) => {
    let harness: Harness | undefined;
    beforeAll(async () => {
      const kind = await make();
      if (!kind) throw new Error(`${name}: the database could not be created`);
      const database = await kind.open();
      const clock = new ManualClock(Date.parse(NOW));
      const impl = createSitesService({ db: database.db, kind: database.kind, clock });
      harness = { kind, database, clock, client: createClient(SitesService, createRouterTransport(({ service }) => service(SitesService, impl))) };
    });
    afterAll(async () => {
      await harness?.kind.cleanup();
    });
    body(() => harness!);
  });
}

export function siteDetails(): MessageInitShape<typeof SiteDetailsSchema> {
  return {
    name: "Maple Street townhomes",
    input: { state: "WA", activity: "construction", disturbedAcres: 4.5, maxDisturbedAcresAtOneTime: 2, startDate: "2026-03-01", endDate: "2027-06-30", dischargesToImpairedWater: false },
    location: { address: "1200 Maple St, Everett, WA 98201", latitude: 47.979, longitude: -122.202 },
    operator: { name: "Dana Reyes", role: "operator", company: "Reyes Builders", email: "dana@reyes.example", phone: "425-555-0100" },
    contacts: [{ name: "Sam Ito", role: "inspector", company: "Reyes Builders" }],
  };
}

export function report(over: Partial<MessageInitShape<typeof InspectionReportSchema>> = {}): MessageInitShape<typeof InspectionReportSchema> {
  return {
    inspectedOn: "2026-11-20",
    startTime: "08:30",
    endTime: "09:15",
    inspector: { name: "Sam Ito", role: "qualified inspector", company: "Reyes Builders" },
    phase: "grading",
    weather: "clear, 50 F",
    stormTriggered: true,
    rainfallInches: 0.4,
    rainfallSource: "on-site rain gauge",
    findings: [{ id: "f1", location: "north silt fence", description: "sediment up to half the fence height", needsCorrectiveAction: true }],
    summary: "One control needs maintenance.",
    ...over,
  };
}

const bytes = (...parts: Array<string | number[]>) => Uint8Array.from(parts.flatMap((p) => (typeof p === "string" ? [...Buffer.from(p, "latin1")] : p)));
export const JPEG = bytes([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10], "JFIF\0", [1, 2, 3, 4]);
export const PNG = bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], "\0\0\0\rIHDR");
export const WEBP = bytes("RIFF", [0x24, 0, 0, 0], "WEBPVP8 ");
export const HEIC = bytes([0, 0, 0, 0x18], "ftypmif1", [0, 0, 0, 0], "mif1heic");
export const AVIF = bytes([0, 0, 0, 0x18], "ftypavif", [0, 0, 0, 0], "mif1avif");
export const DOCX = bytes("PK\u0003\u0004", "word/document.xml plan v1");
export const PDF = bytes("%PDF-1.7\n", "plan v1\n%%EOF");

/** A stormwater answer as document 1 gives it, optionally holding a retention requirement. */
export function answer(retention?: { id: string; years: number; unit: string }): Uint8Array {
  const requirements = retention
    ? [{ id: retention.id, kind: "recordkeeping", label: "Record retention", unit: retention.unit, value: retention.years, detail: "Keep records.", citation: { sourceCitation: "Not verified", sourceUrl: "https://ecology.wa.gov/", confidence: "unverified" } }]
    : [];
  return Buffer.from(JSON.stringify({ coverage: "required", permit: { id: "wa-cswgp", name: "Construction Stormwater General Permit", version: "2025-11-19", authority: "state" }, requirements, notices: [], datasetVersion: "2026-11-26.0c7761e066" }));
}

/** The ConnectError code a call fails with (the test fails if it succeeds). */
export async function codeOf(call: Promise<unknown>): Promise<Code> {
  try {
    await call;
  } catch (e) {
    return ConnectError.from(e).code;
  }
  throw new Error("the call succeeded");
}

export async function failure(call: Promise<unknown>): Promise<ConnectError> {
  try {
    await call;
  } catch (e) {
    return ConnectError.from(e);
  }
  throw new Error("the call succeeded");
}

/** A new site of ACCOUNT, returning its id. */
export async function newSite(h: Harness): Promise<string> {
  const { site } = await h.client.createSite({ accountId: ACCOUNT, actor: ACTOR, details: siteDetails() });
  return site!.id;
}

export { Code };

/** A webhook receiver on 127.0.0.1 that records what it gets (the app's tests post to it). */
export { type Received, type Receiver, startReceiver, webhookHeaders } from "./webhooks/fake-receiver.js";
