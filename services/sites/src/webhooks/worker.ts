// The delivery worker: claims due deliveries, posts each signed (deliver.ts, loaded with the first
// delivery due), and records the attempt. At least once: a claim pushes the delivery's next
// attempt past the attempt's timeout (a lease), so a process killed mid-attempt leaves it to be
// tried again; a restart loses nothing. Replicas are safe: PostgreSQL claims with
// FOR UPDATE SKIP LOCKED (each row to one worker), SQLite's claim is one process's IMMEDIATE
// transaction. Time is the service's clock, so tests move it.
import type { SitesContext } from "../context.js";
import type { WebhookDeliveryRow, WebhookEndpointRow } from "../db/schema.js";
import { newId, timestamp } from "../context.js";
import type { AttemptResult } from "./send.js";
import type { WebhookSettings } from "./settings.js";

/** Deliveries claimed at once by one worker. */
const BATCH = 10;

/**
 * The wait before attempt n+1 after n failed ones: base·2^(n-1), at most max, then "equal jitter"
 * (between half and all of it), so endpoints that failed together are not retried together.
 */
export function backoffMs(settings: Pick<WebhookSettings, "retryBaseMs" | "retryMaxMs">, failedAttempts: number, random: () => number): number {
  const capped = Math.min(settings.retryMaxMs, settings.retryBaseMs * 2 ** Math.min(failedAttempts - 1, 40));
  return Math.round(capped / 2 + (random() * capped) / 2);
}

const iso = (ms: number) => new Date(ms).toISOString();

export class DeliveryWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private again = false;

  constructor(
    private readonly ctx: SitesContext,
    private readonly settings: WebhookSettings,
    private readonly random: () => number = Math.random,
  ) {}

  /** Claims one batch of due deliveries, attempts them, records the outcomes; returns how many were attempted. */
  async deliverDue(): Promise<number> {
    const claimed = await this.claim();
    await Promise.all(claimed.map((d) => this.attempt(d)));
    return claimed.length;
  }

  private async claim(): Promise<WebhookDeliveryRow[]> {
    const { db, kind, clock } = this.ctx;
    const now = clock.now();
    // A plain read first: an idle poll takes no write lock (SQLite's claim is an IMMEDIATE transaction).
    const anyDue = await db.selectFrom("webhook_deliveries").select("id").where("state", "=", "pending").where("next_attempt_at", "<=", iso(now)).limit(1).executeTakeFirst();
    if (!anyDue) return [];
    return db.transaction().execute(async (trx) => {
      let due = trx.selectFrom("webhook_deliveries").selectAll().where("state", "=", "pending").where("next_attempt_at", "<=", iso(now)).orderBy("next_attempt_at").orderBy("id").limit(BATCH);
      if (kind === "postgres") due = due.forUpdate().skipLocked();
      const rows = await due.execute();
      if (rows.length === 0) return [];
      // The lease: past the attempt's timeout, so a live attempt is never doubled, a dead one retried.
      const lease = iso(now + this.settings.timeoutMs * 3);
      await trx.updateTable("webhook_deliveries").set((eb) => ({ attempts: eb("attempts", "+", 1), next_attempt_at: lease })).where("id", "in", rows.map((r) => r.id)).execute();
      return rows.map((r) => ({ ...r, attempts: Number(r.attempts) + 1 }));
    });
  }

  private async attempt(d: WebhookDeliveryRow): Promise<void> {
    const endpoint = await this.ctx.db.selectFrom("webhook_endpoints").selectAll().where("id", "=", d.endpoint_id).executeTakeFirst();
    if (!endpoint) return; // removed meanwhile, with its deliveries
    // Signing and sending load with the first delivery due (deliver.ts), not with the worker.
    const { attemptDelivery } = await import("./deliver.js");
    const at = new Date(this.ctx.clock.now());
    const result = await attemptDelivery(this.settings, endpoint, d.event_id, at, d.payload);
    await this.record(d, endpoint, at.toISOString(), result);
  }

  private async record(d: WebhookDeliveryRow, endpoint: WebhookEndpointRow, at: string, result: AttemptResult): Promise<void> {
    const now = this.ctx.clock.now();
    const deadline = Date.parse(d.created_at) + this.settings.retryForMs;
    await this.ctx.db.transaction().execute(async (trx) => {
      const still = await trx.selectFrom("webhook_deliveries").select("state").where("id", "=", d.id).executeTakeFirst();
      if (!still) return;
      await trx.insertInto("webhook_attempts").values({ id: newId("wha"), delivery_id: d.id, endpoint_id: d.endpoint_id, attempt: d.attempts, at, status_code: result.status, error: result.error, response_excerpt: result.excerpt }).execute();
      // An attempt that outlived its lease may end after another worker's: it is logged, and changes nothing.
      if (still.state !== "pending") return;
      if (result.delivered) {
        await trx.updateTable("webhook_deliveries").set({ state: "delivered" }).where("id", "=", d.id).execute();
        await trx.updateTable("webhook_endpoints").set({ failing_since: null, failing_reason: "" }).where("id", "=", endpoint.id).execute();
        return;
      }
      const next = Math.min(now + backoffMs(this.settings, d.attempts, this.random), deadline);
      if (now < deadline) {
        await trx.updateTable("webhook_deliveries").set({ next_attempt_at: iso(next) }).where("id", "=", d.id).execute();
        return;
      }
      await trx.updateTable("webhook_deliveries").set({ state: "failed" }).where("id", "=", d.id).execute();
      const reason = `An event (${d.type}, ${d.event_id}) could not be delivered in ${Math.round(this.settings.retryForMs / 3_600_000)} hours of retries (${d.attempts} attempts). The last attempt, at ${at}: ${result.error}`;
      await trx.updateTable("webhook_endpoints").set({ failing_since: timestamp(this.ctx), failing_reason: reason }).where("id", "=", endpoint.id).execute();
      this.ctx.logger?.warn({ accountId: d.account_id, endpointId: endpoint.id, eventId: d.event_id, attempts: d.attempts }, "sites: webhook delivery given up; the endpoint is marked failing");
    });
  }

  /** Polls every settings.pollMs until stop(); errors are logged and the next poll goes on. */
  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Looks at the queue now rather than at the next poll. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) this.again = true;
    else this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), ms);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    if (this.stopped || this.running) return;
    this.running = (async () => {
      try {
        // A full batch may mean more are due: drain before sleeping.
        while (!this.stopped && (await this.deliverDue()) === BATCH);
      } catch (err) {
        this.ctx.logger?.error({ err: err instanceof Error ? err.message : String(err) }, "sites: webhook delivery round failed");
      }
    })();
    await this.running;
    this.running = undefined;
    if (this.stopped) return;
    const again = this.again;
    this.again = false;
    this.schedule(again ? 0 : this.settings.pollMs);
  }
}
