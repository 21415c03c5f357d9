// The outbox: an event a customer may be told about (by webhook, by the app) is written in the
// same transaction as the change that causes it, so a crash can lose neither the change nor the
// event. Each event has a dedup key naming the condition it reports (a site, a dataset version, an
// overdue inspection), so a condition checked again and again is recorded once.
import type { Transaction } from "kysely";
import { canonicalJson } from "../audit.js";
import { newId } from "../context.js";
import type { SitesTables } from "../db/schema.js";
import { queueDeliveries, subscribers } from "../webhooks/queue.js";

/** The events an account can subscribe an endpoint to (issue 42's names, contract). */
export const EVENT_TYPES = ["site.rules_changed", "site.permit_expiring", "inspection.overdue", "corrective_action.overdue"] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface NewEvent {
  accountId: string;
  /** The site the event is about; empty for an account-wide event. */
  siteId: string;
  type: EventType;
  /** Names the condition reported, e.g. `site.rules_changed:<site>:<datasetVersion>`; one event per key, ever. */
  dedupKey: string;
  /** The JSON body's `data`: what changed, in the site's own terms. */
  data: Record<string, unknown>;
  /** RFC 3339, from the service's clock. */
  at: string;
}

/**
 * Records the event inside `trx` unless one with the same dedup key exists, and queues its
 * delivery to each of the account's webhook endpoints subscribed to its type, in the same transaction.
 * Returns the new event's id (the `webhook-id` every delivery of it carries), or undefined when the
 * condition was already recorded.
 */
export async function recordEvent(trx: Transaction<SitesTables>, event: NewEvent): Promise<string | undefined> {
  const id = newId("evt");
  const inserted = await trx
    .insertInto("site_events")
    .values({ id, account_id: event.accountId, site_id: event.siteId, type: event.type, dedup_key: event.dedupKey, data_json: canonicalJson(event.data), created_at: event.at })
    .onConflict((oc) => oc.column("dedup_key").doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 0) return undefined;
  await queueDeliveries(trx, { id, accountId: event.accountId, siteId: event.siteId, type: event.type, data: event.data, at: event.at }, await subscribers(trx, event.accountId, event.type));
  return id;
}
