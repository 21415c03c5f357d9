// The app's sign-in sessions on both databases: stored by the digest of their id, touched at most
// once a minute, gone after their idle limit (removed on lookup, and swept at each sign-in), ended
// at sign-out, turned read-only; malformed requests refused by field.
import { createHash } from "node:crypto";
import { beforeEach, expect, it } from "vitest";
import { AppAccess, Plan } from "@permits/proto/entitlement/v1/entitlement";
import { badRequestOf } from "@permits/rules";
import { sql, type Kysely } from "kysely";
import { migrate } from "./db/migrations.js";
import { ACCOUNT, Code, eachDatabase, failure, NOW } from "./testing.js";

const digestOf = (id: string) => createHash("sha256").update(id).digest("hex");
const TWELVE_HOURS = 12 * 3600;
const MINUTE = 60_000;

const start = (id: string, over: { access?: AppAccess; idleLimitSeconds?: number } = {}) => ({
  idSha256: digestOf(id),
  accountId: ACCOUNT,
  keyId: "key_7f3a",
  plan: Plan.PRO,
  access: over.access ?? AppAccess.WORKSPACE,
  idleLimitSeconds: over.idleLimitSeconds ?? TWELVE_HOURS,
});

eachDatabase((h) => {
  const rowOf = (id: string) => h().database.db.selectFrom("app_sessions").selectAll().where("id_sha256", "=", digestOf(id)).executeTakeFirst();

  beforeEach(async () => {
    h().clock.set(Date.parse(NOW));
    await h().database.db.deleteFrom("app_sessions").execute();
  });

  it("keeps a session by the digest of its id and gives it back as it was started", async () => {
    const { session } = await h().client.createSession(start("cookie-one"));
    const expected = { accountId: ACCOUNT, keyId: "key_7f3a", plan: Plan.PRO, access: AppAccess.WORKSPACE, createdAt: NOW, seenAt: NOW, idleLimitSeconds: TWELVE_HOURS };
    expect(session).toMatchObject(expected);
    expect((await h().client.getSession({ idSha256: digestOf("cookie-one") })).session).toMatchObject(expected);
    expect(await rowOf("cookie-one")).toEqual({ id_sha256: digestOf("cookie-one"), account_id: ACCOUNT, key_id: "key_7f3a", plan: 1, access: 1, created_at: NOW, seen_at: NOW, idle_limit_seconds: TWELVE_HOURS, expires_at: "2026-11-29T00:00:00.000Z" });
    expect((await h().client.getSession({ idSha256: digestOf("cookie-two") })).session).toBeUndefined();
  });

  it("writes the last-seen time at most once a minute", async () => {
    await h().client.createSession(start("cookie-touch"));
    h().clock.advance(MINUTE - 1);
    expect((await h().client.getSession({ idSha256: digestOf("cookie-touch") })).session!.seenAt).toBe(NOW);
    expect((await rowOf("cookie-touch"))!.seen_at).toBe(NOW);
    h().clock.advance(1);
    expect((await h().client.getSession({ idSha256: digestOf("cookie-touch") })).session!.seenAt).toBe("2026-11-28T12:01:00.000Z");
    expect(await rowOf("cookie-touch")).toMatchObject({ seen_at: "2026-11-28T12:01:00.000Z", expires_at: "2026-11-29T00:01:00.000Z" });
  });

  it("ends a session idle for its limit, counted from its last use, and removes it when looked up", async () => {
    await h().client.createSession(start("cookie-idle"));
    h().clock.advance(11 * 3600_000);
    expect((await h().client.getSession({ idSha256: digestOf("cookie-idle") })).session).toBeDefined();
    h().clock.advance(TWELVE_HOURS * 1000 - 1);
    expect((await h().client.getSession({ idSha256: digestOf("cookie-idle") })).session).toBeDefined();
    h().clock.advance(TWELVE_HOURS * 1000);
    expect((await h().client.getSession({ idSha256: digestOf("cookie-idle") })).session).toBeUndefined();
    expect(await rowOf("cookie-idle")).toBeUndefined();
  });

  it("sweeps the sessions past their idle limit at each sign-in, and keeps the live ones", async () => {
    await h().client.createSession(start("cookie-short", { idleLimitSeconds: 60 }));
    await h().client.createSession(start("cookie-long"));
    h().clock.advance(2 * MINUTE);
    await h().client.createSession(start("cookie-new"));
    const left = await h().database.db.selectFrom("app_sessions").select("id_sha256").orderBy("id_sha256").execute();
    expect(left.map((r) => r.id_sha256)).toEqual([digestOf("cookie-long"), digestOf("cookie-new")].sort());
  });

  it("ends a session at sign-out, once", async () => {
    await h().client.createSession(start("cookie-out"));
    expect(await h().client.endSession({ idSha256: digestOf("cookie-out") })).toMatchObject({ ended: true });
    expect((await h().client.getSession({ idSha256: digestOf("cookie-out") })).session).toBeUndefined();
    expect(await h().client.endSession({ idSha256: digestOf("cookie-out") })).toMatchObject({ ended: false });
  });

  it("turns a live session read-only, and no ended one", async () => {
    await h().client.createSession(start("cookie-cancelled"));
    expect(await h().client.makeSessionReadOnly({ idSha256: digestOf("cookie-cancelled") })).toMatchObject({ found: true });
    expect((await h().client.getSession({ idSha256: digestOf("cookie-cancelled") })).session!.access).toBe(AppAccess.READ_ONLY);
    expect(await h().client.makeSessionReadOnly({ idSha256: digestOf("cookie-never") })).toMatchObject({ found: false });
  });

  it("refuses a malformed session by field, storing nothing", async () => {
    const bad = await failure(h().client.createSession({ ...start("x"), idSha256: "NOT-A-DIGEST", keyId: "", access: AppAccess.NOT_INCLUDED, idleLimitSeconds: 0 }));
    expect(bad.code).toBe(Code.InvalidArgument);
    expect(badRequestOf(bad)!.violations.map((v) => v.field)).toEqual(["idSha256", "keyId", "access", "idleLimitSeconds"]);
    expect((await failure(h().client.getSession({ idSha256: "" }))).code).toBe(Code.InvalidArgument);
    expect((await failure(h().client.endSession({ idSha256: "cookie-raw-id" }))).code).toBe(Code.InvalidArgument);
    expect(await h().database.db.selectFrom("app_sessions").selectAll().execute()).toEqual([]);
  });

  it("is added to a database migrated before it arrived (0006_webhooks already applied), once", async () => {
    const { db, kind } = h().database;
    const migrated = () => db.selectFrom("sites_migrations" as never).select("name" as never).orderBy("name" as never).execute();
    const before = await migrated();
    await db.schema.dropTable("app_sessions").execute();
    await db.deleteFrom("sites_migrations" as never).where("name" as never, "=", "0004_sessions" as never).execute();
    await migrate(db as unknown as Kysely<unknown>, kind);
    expect(await migrated()).toEqual(before);
    await h().client.createSession(start("cookie-after-migration"));
    expect(await sql`select count(*) as n from app_sessions`.execute(db).then((r) => Number((r.rows[0] as { n: unknown }).n))).toBe(1);
  });
});
