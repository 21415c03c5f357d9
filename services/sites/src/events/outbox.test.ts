// The outbox records one event per condition, inside the caller's transaction, on both databases.
import { expect, it } from "vitest";
import { ACCOUNT, eachDatabase, newSite, NOW } from "../testing.js";
import { recordEvent } from "./outbox.js";

eachDatabase((h) => {
  it("records an event once per dedup key, and nothing when the transaction rolls back", async () => {
    const { db } = h().database;
    const siteId = await newSite(h());
    const event = { accountId: ACCOUNT, siteId, type: "inspection.overdue" as const, dedupKey: `inspection.overdue:${siteId}:2026-11-21`, data: { dueOn: "2026-11-21" }, at: NOW };
    const first = await db.transaction().execute((trx) => recordEvent(trx, event));
    const again = await db.transaction().execute((trx) => recordEvent(trx, { ...event, data: { dueOn: "other" } }));
    expect(first).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(again).toBeUndefined();

    const rolledBack = { ...event, dedupKey: `inspection.overdue:${siteId}:2026-11-28` };
    await expect(
      db.transaction().execute(async (trx) => {
        await recordEvent(trx, rolledBack);
        throw new Error("the change failed");
      }),
    ).rejects.toThrow("the change failed");

    const rows = await db.selectFrom("site_events").selectAll().where("site_id", "=", siteId).execute();
    expect(rows).toEqual([{ id: first, account_id: ACCOUNT, site_id: siteId, type: "inspection.overdue", dedup_key: event.dedupKey, data_json: '{"dueOn":"2026-11-21"}', created_at: NOW }]);
  });
});
