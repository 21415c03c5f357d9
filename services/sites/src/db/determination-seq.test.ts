// 0008_determination_seq on a database that already holds answers, on SQLite and PostgreSQL: they
// are numbered per site in the order saved (time, then id), the table refuses UPDATE again after,
// and the next answer takes the next number, so two saved in one millisecond keep their order.
import path from "node:path";
import { expect, inject, it } from "vitest";
import { type Kysely, sql } from "kysely";
import { Migrator } from "kysely/migration";
import { createClient, createRouterTransport } from "@connectrpc/connect";
import { ManualClock } from "@permits/runtime";
import { SitesService } from "@permits/proto/sites/v1/sites";
import { openSql } from "@permits/state/sql";
import { createSitesService } from "../service.js";
import { ACCOUNT, ACTOR, answer, NOW, postgresKind, sqliteKind } from "../testing.js";
import { migrations } from "./migrations.js";

const T1 = "2026-11-01T09:00:00.000Z";
const T2 = "2026-11-02T09:00:00.000Z";

async function insertBefore0008(db: Kysely<unknown>): Promise<void> {
  const site = (id: string) => sql`INSERT INTO sites (id, account_id, name, details_json, created_at, updated_at) VALUES (${id}, ${ACCOUNT}, ${id}, '{}', ${T1}, ${T1})`.execute(db);
  const det = (id: string, siteId: string, at: string) =>
    sql`INSERT INTO determinations (id, site_id, answer_json, dataset_version, permit_id, permit_version, sha256, saved_at, saved_by) VALUES (${id}, ${siteId}, ${Buffer.from(id)}, 'v1', 'p', '1', ${id}, ${at}, ${ACTOR})`.execute(db);
  await site("site_a");
  await site("site_b");
  // Saved out of id order, and two in one millisecond (told apart by id, as before).
  await det("det_c", "site_a", T2);
  await det("det_b", "site_a", T1);
  await det("det_a", "site_a", T2);
  await det("det_z", "site_b", T1);
}

const makers = [{ name: "sqlite", make: sqliteKind }, ...(inject("prerequisites").postgres ? [{ name: "postgres", make: postgresKind }] : [])];

it.each(makers)("numbers the answers already stored on $name, keeps the table append-only, and orders later saves by the number", async ({ name, make }) => {
  const kind = (await make())!;
  try {
    const url = kind.url();
    const raw = await openSql<unknown>(name === "postgres" ? { databaseUrl: url, file: "" } : { stateDir: path.dirname(url), file: path.basename(url) });
    const before = Object.fromEntries(Object.entries(migrations(raw.kind)).filter(([n]) => n < "0008"));
    const migrated = await new Migrator({ db: raw.db, provider: { getMigrations: async () => before }, migrationTableName: "sites_migrations", migrationLockTableName: "sites_migrations_lock" }).migrateToLatest();
    expect(migrated.error).toBeUndefined();
    await insertBefore0008(raw.db);
    await raw.db.destroy();

    const database = await kind.open(); // applies 0008
    const rows = await database.db.selectFrom("determinations").select(["id", "site_id", "seq"]).orderBy("site_id").orderBy("seq").execute();
    expect(rows.map((r) => [r.site_id, r.id, Number(r.seq)])).toEqual([["site_a", "det_b", 1], ["site_a", "det_a", 2], ["site_a", "det_c", 3], ["site_b", "det_z", 1]]);
    await expect(database.db.updateTable("determinations").set({ seq: 9 }).where("id", "=", "det_a").execute()).rejects.toThrow(/a stored record cannot be changed/);

    // Two answers in the same millisecond: the one saved second is the latest, every time.
    const impl = createSitesService({ db: database.db, kind: database.kind, clock: new ManualClock(Date.parse(NOW)) });
    const client = createClient(SitesService, createRouterTransport(({ service }) => service(SitesService, impl)));
    const w = { accountId: ACCOUNT, actor: ACTOR, siteId: "site_a" };
    const first = answer();
    const second = answer({ id: "retention.records", years: 5, unit: "years" });
    for (const bytes of [first, second, first, second]) await client.saveDetermination({ ...w, answerJson: bytes });
    expect(Buffer.from((await client.getDetermination(w)).determination!.answerJson).equals(Buffer.from(second))).toBe(true);
    const seqs = await database.db.selectFrom("determinations").select("seq").where("site_id", "=", "site_a").orderBy("seq").execute();
    expect(seqs.map((r) => Number(r.seq))).toEqual([1, 2, 3, 4, 5, 6, 7]);
  } finally {
    await kind.cleanup();
  }
});
