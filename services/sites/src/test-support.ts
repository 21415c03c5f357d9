// Shared by the sites suites: every suite runs unchanged on SQLite (a temp file) and on PostgreSQL
// (a database of its own), with concrete sites, reports, images and stormwater answers.
import { afterAll, beforeAll, describe, inject, it } from "vitest";
import { type MessageInitShape } from "@bufbuild/protobuf";
import { type Client, Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { ManualClock } from "@permits/runtime";
import { type InspectionReportSchema, type SiteDetailsSchema, SitesService } from "@permits/proto/sites/v1/sites";
import { createSitesService } from "./service.js";
import { type DbKind, postgresKind, type SitesDatabase, sqliteKind } from "./testing.js";

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

const pgUp = inject("prerequisites").postgres;

/** Runs `body` once per database; `h()` is that database's harness (valid inside tests and hooks). */
export function eachDatabase(body: (h: () => Harness) => void): void {
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
