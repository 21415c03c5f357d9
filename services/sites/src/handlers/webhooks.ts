// An account's webhook endpoints: register (the secret answered once), list, remove, rotate the
// secret (the old one signs beside the new for 24 hours), the delivery log, and a test event.
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import { create } from "@bufbuild/protobuf";
import { type SitesService, WebhookAttemptSchema, type WebhookEndpoint, WebhookEndpointSchema } from "@permits/proto/sites/v1/sites";
import { ViolationReason } from "@permits/rules";
import { guard, newId, notFound, type SitesContext, timestamp, type Trx } from "../context.js";
import type { WebhookEndpointRow } from "../db/schema.js";
import { EVENT_TYPES } from "../events/outbox.js";
import { queueDeliveries, TEST_EVENT_TYPE } from "../webhooks/queue.js";
import { newSigningSecret, seal } from "../webhooks/secrets.js";
import { MAX_ENDPOINTS, ROTATION_OVERLAP_MS, type WebhookSettings } from "../webhooks/settings.js";
import { Check, checkCaller, LIMITS } from "../validate.js";

type Handlers = Pick<ServiceImpl<typeof SitesService>, "createWebhookEndpoint" | "listWebhookEndpoints" | "updateWebhookEndpoint" | "deleteWebhookEndpoint" | "rotateWebhookSecret" | "listWebhookAttempts" | "sendTestWebhook">;

/** The latest attempts ListWebhookAttempts answers. */
const LOG_LENGTH = 50;

function toEndpoint(row: WebhookEndpointRow, now: string): WebhookEndpoint {
  const overlap = row.previous_secret_until !== null && row.previous_secret_until > now ? row.previous_secret_until : "";
  return create(WebhookEndpointSchema, {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events_json) as string[],
    createdAt: row.created_at,
    previousSecretValidUntil: overlap,
    failing: row.failing_since !== null,
    failingSince: row.failing_since ?? "",
    failingReason: row.failing_reason,
  });
}

function endpointOf(q: SitesContext["db"] | Trx, accountId: string, endpointId: string): Promise<WebhookEndpointRow> {
  return q
    .selectFrom("webhook_endpoints")
    .selectAll()
    .where("id", "=", endpointId)
    .where("account_id", "=", accountId)
    .executeTakeFirst()
    .then((row) => row ?? Promise.reject(notFound("webhook_endpoint", endpointId)));
}

/** At least one event, each a known type; answers them in EVENT_TYPES' order. */
function checkEvents(c: Check, events: readonly string[]): string[] {
  if (events.length === 0) c.add("events", "Choose at least one event.", ViolationReason.MISSING);
  const unknown = events.filter((e) => !(EVENT_TYPES as readonly string[]).includes(e));
  if (unknown.length > 0) c.add("events", `Unknown event ${JSON.stringify(unknown[0]!.slice(0, 60))}.`, ViolationReason.UNKNOWN_VALUE, [...EVENT_TYPES]);
  return EVENT_TYPES.filter((e) => events.includes(e));
}

function checkEndpointRequest(req: { accountId: string; actor: string; endpointId: string }): void {
  checkCaller(new Check(), req).required("endpointId", req.endpointId, LIMITS.id).done();
}

export function webhookHandlers(ctx: SitesContext): Handlers {
  const { db } = ctx;
  const settings = (): WebhookSettings => {
    if (!ctx.webhooks) throw new ConnectError("webhooks are not configured on this server (WEBHOOK_SECRET_KEY is unset)", Code.FailedPrecondition);
    return ctx.webhooks;
  };
  return {
    async createWebhookEndpoint(req) {
      const s = settings();
      // The address checks (DNS, ipaddr.js) load with the first registration, not with the service.
      const { checkHost, TargetRefused, urlProblem } = await import("../webhooks/targets.js");
      const c = checkCaller(new Check(), req).required("url", req.url, 2000);
      const problem = req.url.trim() === "" ? undefined : urlProblem(req.url, s.policy);
      if (problem) c.add("url", problem);
      const events = checkEvents(c, req.events);
      c.done();
      try {
        await checkHost(new URL(req.url).hostname, s.policy);
      } catch (e) {
        if (!(e instanceof TargetRefused)) throw e;
        new Check().add("url", e.message).done();
      }
      const secret = newSigningSecret();
      const row = await guard(ctx, () =>
        db.transaction().execute(async (trx) => {
          const count = await trx.selectFrom("webhook_endpoints").select((eb) => eb.fn.countAll().as("n")).where("account_id", "=", req.accountId).executeTakeFirstOrThrow();
          if (Number(count.n) >= MAX_ENDPOINTS) new Check().add("url", `This account already has ${MAX_ENDPOINTS} endpoints, the most it can have: remove one first.`).done();
          const values: WebhookEndpointRow = { id: newId("whe"), account_id: req.accountId, url: req.url, events_json: JSON.stringify(events), secret_sealed: seal(s.key, secret), previous_secret_sealed: null, previous_secret_until: null, failing_since: null, failing_reason: "", created_at: timestamp(ctx) };
          await trx.insertInto("webhook_endpoints").values(values).execute();
          return values;
        }),
      );
      ctx.logger?.info({ accountId: req.accountId, actor: req.actor, endpointId: row.id }, "sites: webhook endpoint registered");
      return { endpoint: toEndpoint(row, timestamp(ctx)), signingSecret: secret };
    },

    async listWebhookEndpoints(req) {
      checkCaller(new Check(), req).done();
      const rows = await guard(ctx, () => db.selectFrom("webhook_endpoints").selectAll().where("account_id", "=", req.accountId).orderBy("created_at").orderBy("id").execute());
      const now = timestamp(ctx);
      return { endpoints: rows.map((r) => toEndpoint(r, now)) };
    },

    async updateWebhookEndpoint(req) {
      const c = checkCaller(new Check(), req).required("endpointId", req.endpointId, LIMITS.id);
      const events = checkEvents(c, req.events);
      c.done();
      const row = await guard(ctx, () =>
        db.transaction().execute(async (trx) => {
          const current = await endpointOf(trx, req.accountId, req.endpointId);
          await trx.updateTable("webhook_endpoints").set({ events_json: JSON.stringify(events) }).where("id", "=", current.id).execute();
          return { ...current, events_json: JSON.stringify(events) };
        }),
      );
      return { endpoint: toEndpoint(row, timestamp(ctx)) };
    },

    async deleteWebhookEndpoint(req) {
      checkEndpointRequest(req);
      await guard(ctx, () =>
        db.transaction().execute(async (trx) => {
          await endpointOf(trx, req.accountId, req.endpointId);
          await trx.deleteFrom("webhook_attempts").where("endpoint_id", "=", req.endpointId).execute();
          await trx.deleteFrom("webhook_deliveries").where("endpoint_id", "=", req.endpointId).execute();
          await trx.deleteFrom("webhook_endpoints").where("id", "=", req.endpointId).execute();
        }),
      );
      ctx.logger?.info({ accountId: req.accountId, actor: req.actor, endpointId: req.endpointId }, "sites: webhook endpoint removed");
      return {};
    },

    async rotateWebhookSecret(req) {
      checkEndpointRequest(req);
      const s = settings();
      const secret = newSigningSecret();
      const now = ctx.clock.now();
      const row = await guard(ctx, () =>
        db.transaction().execute(async (trx) => {
          const current = await endpointOf(trx, req.accountId, req.endpointId);
          // Only the secret just replaced overlaps: a second rotation within 24 hours retires the oldest.
          const rotated = { secret_sealed: seal(s.key, secret), previous_secret_sealed: current.secret_sealed, previous_secret_until: new Date(now + ROTATION_OVERLAP_MS).toISOString() };
          await trx.updateTable("webhook_endpoints").set(rotated).where("id", "=", current.id).execute();
          return { ...current, ...rotated };
        }),
      );
      ctx.logger?.info({ accountId: req.accountId, actor: req.actor, endpointId: row.id }, "sites: webhook secret rotated");
      return { endpoint: toEndpoint(row, timestamp(ctx)), signingSecret: secret };
    },

    async listWebhookAttempts(req) {
      checkEndpointRequest(req);
      const rows = await guard(ctx, async () => {
        await endpointOf(db, req.accountId, req.endpointId);
        return db
          .selectFrom("webhook_attempts as a")
          .innerJoin("webhook_deliveries as d", "d.id", "a.delivery_id")
          .select(["d.event_id", "d.type", "d.state", "a.attempt", "a.at", "a.status_code", "a.error", "a.response_excerpt"])
          .where("a.endpoint_id", "=", req.endpointId)
          .orderBy("a.at", "desc")
          .orderBy("a.attempt", "desc")
          .limit(LOG_LENGTH)
          .execute();
      });
      return {
        attempts: rows.map((r) =>
          create(WebhookAttemptSchema, { eventId: r.event_id, eventType: r.type, attempt: Number(r.attempt), at: r.at, statusCode: Number(r.status_code), delivered: r.error === "", error: r.error, responseExcerpt: r.response_excerpt, retrying: r.state === "pending" }),
        ),
      };
    },

    async sendTestWebhook(req) {
      checkEndpointRequest(req);
      const s = settings();
      const eventId = newId("evt");
      await guard(ctx, () =>
        db.transaction().execute(async (trx) => {
          const endpoint = await endpointOf(trx, req.accountId, req.endpointId);
          const data = { message: "A test event sent from the webhook settings: this endpoint receives and verifies deliveries.", endpoint: { id: endpoint.id, url: endpoint.url } };
          await queueDeliveries(trx, { id: eventId, accountId: req.accountId, siteId: "", type: TEST_EVENT_TYPE, data, at: timestamp(ctx) }, [endpoint]);
        }),
      );
      s.wake?.();
      return { eventId };
    },
  };
}
