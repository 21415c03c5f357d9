// The delivery queue: one row per event and subscribed endpoint, written in the transaction that
// records the event (so an event is never recorded without its deliveries, nor the reverse), with
// the JSON body fixed then, so every attempt sends the same bytes under the same webhook-id.
import { canonicalJson } from "../audit.js";
import { newId, type Trx } from "../context.js";

/** The type of the event the app's "send a test event" button sends. */
export const TEST_EVENT_TYPE = "webhook.test";

export interface QueuedEvent {
  /** `evt_…`: the webhook-id. */
  id: string;
  accountId: string;
  siteId: string;
  type: string;
  data: Record<string, unknown>;
  /** RFC 3339: the body's `timestamp` and the time the first attempt is due. */
  at: string;
}

/** The account's endpoints subscribed to `type`, in the order they were added. */
export async function subscribers(trx: Trx, accountId: string, type: string): Promise<Array<{ id: string }>> {
  const rows = await trx.selectFrom("webhook_endpoints").select(["id", "events_json"]).where("account_id", "=", accountId).orderBy("created_at").orderBy("id").execute();
  return rows.filter((r) => (JSON.parse(r.events_json) as string[]).includes(type));
}

/** The body: `{type, timestamp, data}` as the Standard Webhooks specification suggests; data names the site. */
async function payloadOf(trx: Trx, event: QueuedEvent): Promise<string> {
  let data = event.data;
  if (event.siteId !== "") {
    const site = await trx.selectFrom("sites").select(["id", "name"]).where("id", "=", event.siteId).executeTakeFirst();
    data = { site: { id: event.siteId, name: site?.name ?? "" }, ...data };
  }
  return canonicalJson({ type: event.type, timestamp: event.at, data });
}

/** Queues the event for each endpoint given; returns how many deliveries were queued. */
export async function queueDeliveries(trx: Trx, event: QueuedEvent, endpoints: ReadonlyArray<{ id: string }>): Promise<number> {
  if (endpoints.length === 0) return 0;
  const payload = await payloadOf(trx, event);
  await trx
    .insertInto("webhook_deliveries")
    .values(endpoints.map((e) => ({ id: newId("whd"), endpoint_id: e.id, account_id: event.accountId, site_id: event.siteId, event_id: event.id, type: event.type, payload, state: "pending" as const, attempts: 0, next_attempt_at: event.at, created_at: event.at })))
    .execute();
  return endpoints.length;
}

/** Removes a site's deliveries and their log (a purge, before the site's events go). */
export async function deleteSiteDeliveries(trx: Trx, siteId: string): Promise<void> {
  await trx.deleteFrom("webhook_attempts").where("delivery_id", "in", (eb) => eb.selectFrom("webhook_deliveries").select("id").where("site_id", "=", siteId)).execute();
  await trx.deleteFrom("webhook_deliveries").where("site_id", "=", siteId).execute();
}
