// Durability across processes, on both databases: kill -9 in a burst of writes loses no
// acknowledged record and leaves no half-written one; two processes write one site at once; a
// backup restored into a fresh database exports the same bytes. The writers are child processes
// running the built service (npm test builds first).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { expect, it } from "vitest";
import { createClient, createRouterTransport } from "@connectrpc/connect";
import { SitesService } from "@permits/proto/sites/v1/sites";
import { verifyChain } from "./audit.js";
import { runCli } from "./cli.js";
import { migrations } from "./db/migrations.js";
import { openSqlite } from "./db/open.js";
import { createSitesService } from "./service.js";
import { ACCOUNT, ACTOR, DOCX, eachDatabase, type Harness, JPEG, newSite, openSitesDatabase, PDF, postgresKind, report, sqliteKind, TEST_POSTGRES_URL } from "./testing.js";

const DIST = path.resolve(import.meta.dirname, "../dist");

/** A writer: opens the database, then adds rain events to one site, printing "ack <id>" after each commit. */
const WRITER = `
const [dist, kind, target, siteId, count] = process.argv.slice(1);
const { openSitesDatabase, openSqlite } = await import(dist + "/db/open.js");
const { createSitesService } = await import(dist + "/service.js");
const database = kind === "sqlite" ? await openSqlite(target) : await openSitesDatabase({ databaseUrl: target, poolSize: 2 });
const service = createSitesService({ db: database.db, kind: database.kind, clock: { now: () => Date.now() } });
for (let n = 0; n < Number(count); n++) {
  const { rainEvent } = await service.addRainEvent({ accountId: "${ACCOUNT}", actor: "writer " + process.pid, siteId, occurredOn: "2026-11-20", inches: (n % 500) / 100, measuredBy: "burst " + n });
  process.stdout.write("ack " + rainEvent.id + "\\n");
}
await database.close();
`;

/** A replica starting: opens (migrating) the database and closes it. */
const OPENER = `
const [dist, kind, target] = process.argv.slice(1);
const { openSitesDatabase, openSqlite } = await import(dist + "/db/open.js");
const database = kind === "sqlite" ? await openSqlite(target) : await openSitesDatabase({ databaseUrl: target, poolSize: 1 });
await database.close();
`;

function runChild(script: string, args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ["--no-warnings", "--input-type=module", "-e", script, ...args], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stderr })));
}

interface Writer {
  acks: string[];
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
  kill(): void;
}

function startWriter(h: Harness, siteId: string, count: number, onAck?: (n: number) => void): Writer {
  if (!existsSync(path.join(DIST, "service.js"))) throw new Error(`the built service is missing at ${DIST}: run npm run build`);
  const child = spawn(process.execPath, ["--no-warnings", "--input-type=module", "-e", WRITER, DIST, h.database.kind, h.kind.url(), siteId, String(count)], { stdio: ["ignore", "pipe", "pipe"] });
  const acks: string[] = [];
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  createInterface({ input: child.stdout }).on("line", (line) => {
    if (line.startsWith("ack ")) acks.push(line.slice(4));
    onAck?.(acks.length);
  });
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stderr })));
  return { acks, done, kill: () => child.kill("SIGKILL") };
}

async function rainOf(h: Harness, siteId: string) {
  const { db } = h.database;
  const rain = await db.selectFrom("rain_events").select("id").where("site_id", "=", siteId).execute();
  const audit = await db.selectFrom("audit_events").selectAll().where("site_id", "=", siteId).orderBy("seq").execute();
  return { ids: new Set(rain.map((r) => r.id)), recorded: audit.filter((e) => e.action === "rain.recorded").map((e) => e.subject_id), chain: verifyChain(audit) };
}

eachDatabase((h) => {
  it("several replicas starting at once on a fresh database apply each migration once", async () => {
    // Processes, not connections of this one: node:sqlite waits for a lock synchronously, so two
    // connections of one event loop would wait on each other (the service opens one per process).
    const fresh = h().database.kind === "sqlite" ? await sqliteKind() : (await postgresKind())!;
    try {
      const opens = [0, 1, 2].map(() => runChild(OPENER, [DIST, h().database.kind, fresh.url()]));
      for (const end of await Promise.all(opens)) expect(end.code, end.stderr).toBe(0);
      const replica = await fresh.open();
      const applied = await replica.db.selectFrom("sites_migrations" as never).select("name" as never).orderBy("name" as never).execute();
      expect(applied.map((r) => (r as { name: string }).name)).toEqual(Object.keys(migrations(h().database.kind)));
    } finally {
      await fresh.cleanup();
    }
  });

  it("kill -9 in a burst of writes: every acknowledged record is there, none half-written", async () => {
    const siteId = await newSite(h());
    let kill = () => {};
    const writer = startWriter(h(), siteId, 100_000, (n) => n === 150 && kill());
    kill = writer.kill;
    const { signal, stderr } = await writer.done;
    expect(signal, stderr).toBe("SIGKILL");
    expect(writer.acks.length).toBeGreaterThanOrEqual(150);

    const after = await rainOf(h(), siteId);
    for (const id of writer.acks) expect(after.ids.has(id), id).toBe(true);
    // At most the write in flight committed without its acknowledgement reaching us.
    expect(after.ids.size - writer.acks.length).toBeLessThanOrEqual(1);
    // Each record with its audit event, or neither: the transaction is whole or absent.
    expect(after.recorded.sort()).toEqual([...after.ids].sort());
    expect(after.chain).toEqual({ intact: true, firstBrokenSeq: 0 });
  });

  it("two processes write one site at once: both finish, nothing lost, one unbroken chain", async () => {
    const siteId = await newSite(h());
    const writers = [startWriter(h(), siteId, 60), startWriter(h(), siteId, 60)];
    const ends = await Promise.all(writers.map((w) => w.done));
    for (const end of ends) expect(end.code, end.stderr).toBe(0);
    const after = await rainOf(h(), siteId);
    expect(after.ids.size).toBe(120);
    expect(new Set([...writers[0]!.acks, ...writers[1]!.acks])).toEqual(after.ids);
    expect(after.chain).toEqual({ intact: true, firstBrokenSeq: 0 });
  });

  it("a backup restored into a fresh database exports the same bytes", async () => {
    const c = h().client;
    const siteId = await newSite(h());
    const s = { accountId: ACCOUNT, actor: ACTOR, siteId };
    await c.addPlanVersion({ ...s, docx: DOCX, pdf: PDF });
    const inspection = (await c.createInspectionDraft({ ...s, report: report() })).inspection!;
    await c.addInspectionPhoto({ ...s, inspectionId: inspection.id, content: JPEG });
    await c.signInspection({ ...s, inspectionId: inspection.id, signedBy: "Sam Ito", certification: "I certify under penalty of law." });
    const original = (await c.exportSite(s)).zip;

    const dir = mkdtempSync(path.join(tmpdir(), "sites-backup-"));
    try {
      let restored;
      if (h().database.kind === "sqlite") {
        const lines: string[] = [];
        const stateDir = path.dirname(h().kind.url());
        expect(await runCli(["backup", path.join(dir, "copy.sqlite")], { STATE_DIR: stateDir }, (l) => lines.push(l))).toBe(0);
        expect(lines[0]).toMatch(/^backed up .*sites\.sqlite to .*copy\.sqlite \(\d+ pages\)$/);
        restored = await openSqlite(path.join(dir, "copy.sqlite"));
      } else {
        const dump = path.join(dir, "sites.dump");
        const fresh = `sites_restore_${process.pid}_${Date.now()}`;
        const run = (cmd: string, args: string[]) => {
          const r = spawnSync(cmd, args, { encoding: "utf8" });
          expect(r.status, `${cmd}: ${r.stderr}`).toBe(0);
        };
        const server = new URL(TEST_POSTGRES_URL);
        const target = new URL(TEST_POSTGRES_URL);
        target.pathname = `/${fresh}`;
        run("pg_dump", ["--format=custom", `--file=${dump}`, h().kind.url()]);
        run("createdb", ["-h", server.hostname, "-p", server.port || "5432", "-U", server.username || "postgres", fresh]);
        try {
          run("pg_restore", ["--no-owner", `--dbname=${target}`, dump]);
          restored = await openSitesDatabase({ databaseUrl: target.toString(), poolSize: 1 });
          const copy = createClient(SitesService, createRouterTransport(({ service }) => service(SitesService, createSitesService({ db: restored!.db, kind: restored!.kind, clock: h().clock }))));
          expect(Buffer.from((await copy.exportSite(s)).zip).equals(Buffer.from(original))).toBe(true);
          await restored.close();
          restored = undefined;
        } finally {
          run("dropdb", ["-h", server.hostname, "-p", server.port || "5432", "-U", server.username || "postgres", "--force", fresh]);
        }
      }
      if (restored) {
        const copy = createClient(SitesService, createRouterTransport(({ service }) => service(SitesService, createSitesService({ db: restored!.db, kind: restored!.kind, clock: h().clock }))));
        expect(Buffer.from((await copy.exportSite(s)).zip).equals(Buffer.from(original))).toBe(true);
        await restored.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
