// Webhooks on both databases, against a receiver on 127.0.0.1: signed deliveries the library's
// verifier accepts, retries with backoff until success, 3 days then failing, the rotation overlap,
// refused targets, no redirects, a 1 KB excerpt, replicas delivering each event once.
import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from "vitest";
import { createClient, createRouterTransport, type Client } from "@connectrpc/connect";
import { ManualClock } from "@permits/runtime";
import { SitesService } from "@permits/proto/sites/v1/sites";
import { badRequestOf } from "@permits/rules";
import { Webhook } from "standardwebhooks";
import type { SitesContext } from "../context.js";
import { type EventType, recordEvent } from "../events/outbox.js";
import { createSitesService } from "../service.js";
import { ACCOUNT, ACTOR, Code, eachDatabase, failure, OTHER_ACCOUNT, siteDetails } from "../testing.js";
import { type Received, type Receiver, startReceiver, webhookHeaders } from "./fake-receiver.js";
import type { WebhookSettings } from "./settings.js";
import { backoffMs, DeliveryWorker } from "./worker.js";

const HOUR = 3_600_000;
const SETTINGS = { timeoutMs: 10_000, retryBaseMs: 10_000, retryMaxMs: 4 * HOUR, retryForMs: 72 * HOUR, pollMs: 1000 };

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
});
beforeEach(() => {
  receiver.received.length = 0;
  receiver.answer = () => ({ status: 200, body: "ok" });
});

/** The library's verifier, with its clock at `atMs` (the service's manual clock, not the machine's). */
function verifiedAt(secret: string, r: Received, atMs: number): unknown {
  vi.useFakeTimers({ toFake: ["Date"], now: atMs });
  try {
    return new Webhook(secret).verify(r.body, webhookHeaders(r));
  } finally {
    vi.useRealTimers();
  }
}

eachDatabase((h) => {
  let clock: ManualClock;
  let settings: WebhookSettings;
  let ctx: SitesContext;
  let client: Client<typeof SitesService>;
  /** Full backoff (no jitter drawn), so the test knows when each retry is due. */
  let worker: DeliveryWorker;

  beforeAll(() => {
    // Near the machine's time, so the verifier's 5-minute tolerance can also be checked for real.
    clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000);
    settings = { ...SETTINGS, key: randomBytes(32), policy: { allowPrivate: true } };
    ctx = { db: h().database.db, kind: h().database.kind, clock, webhooks: settings };
    client = createClient(SitesService, createRouterTransport(({ service }) => service(SitesService, createSitesService(ctx))));
    worker = new DeliveryWorker(ctx, settings, () => 1);
  });

  // Each test starts with no endpoints, so one that fails leaves nothing subscribed for the next.
  afterEach(async () => {
    receiver.release();
    await ctx.db.deleteFrom("webhook_attempts").execute();
    await ctx.db.deleteFrom("webhook_deliveries").execute();
    await ctx.db.deleteFrom("webhook_endpoints").execute();
  });

  const register = (path: string, events: EventType[], accountId = ACCOUNT) => client.createWebhookEndpoint({ accountId, actor: ACTOR, url: `${receiver.origin}${path}`, events });
  const newSite = async () => (await client.createSite({ accountId: ACCOUNT, actor: ACTOR, details: siteDetails() })).site!.id;
  const record = (siteId: string, type: EventType, key: string, data: Record<string, unknown> = { dueOn: "2026-11-21" }) =>
    ctx.db.transaction().execute((trx) => recordEvent(trx, { accountId: ACCOUNT, siteId, type, dedupKey: `${type}:${siteId}:${key}`, data, at: new Date(clock.now()).toISOString() }));
  const deliveryOf = (eventId: string) => ctx.db.selectFrom("webhook_deliveries").selectAll().where("event_id", "=", eventId).executeTakeFirstOrThrow();

  it("delivers an event to each subscribed endpoint, signed so the library's verifier accepts it, with a body naming the site and what changed", async () => {
    const overdue = await register("/overdue", ["inspection.overdue", "corrective_action.overdue"]);
    const rules = await register("/rules", ["site.rules_changed"]);
    await register("/elsewhere", ["inspection.overdue"], OTHER_ACCOUNT);
    expect(overdue.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(overdue.endpoint!.events).toEqual(["inspection.overdue", "corrective_action.overdue"]);
    const siteId = await newSite();
    const eventId = await record(siteId, "inspection.overdue", "2026-11-21");

    expect(await worker.deliverDue()).toBe(1);
    expect(receiver.received.map((r) => r.path)).toEqual(["/overdue"]);
    const [got] = receiver.received;
    expect(got!.headers["webhook-id"]).toBe(eventId);
    expect(got!.headers["webhook-timestamp"]).toBe(String(clock.now() / 1000));
    expect(got!.headers["content-type"]).toBe("application/json");
    const body = { data: { dueOn: "2026-11-21", site: { id: siteId, name: "Maple Street townhomes" } }, timestamp: new Date(clock.now()).toISOString(), type: "inspection.overdue" };
    expect(verifiedAt(overdue.signingSecret, got!, clock.now())).toEqual(body);
    expect(() => new Webhook(overdue.signingSecret).verify(got!.body, webhookHeaders(got!))).not.toThrow(); // the machine's own clock too
    expect(() => verifiedAt(rules.signingSecret, got!, clock.now())).toThrow("No matching signature found");
    expect(() => verifiedAt(overdue.signingSecret, { ...got!, body: got!.body.replace("2026-11-21", "2026-11-22") }, clock.now())).toThrow("No matching signature found");
    expect(() => verifiedAt(overdue.signingSecret, got!, clock.now() + 6 * 60_000)).toThrow("Message timestamp too old");

    const log = await client.listWebhookAttempts({ accountId: ACCOUNT, actor: ACTOR, endpointId: overdue.endpoint!.id });
    expect(log.attempts.map((a) => [a.eventId, a.eventType, a.attempt, a.statusCode, a.delivered, a.error, a.responseExcerpt, a.retrying])).toEqual([[eventId, "inspection.overdue", 1, 200, true, "", "ok", false]]);
    // Delivered is done: nothing more goes out, however long after.
    clock.advance(4 * 24 * HOUR);
    expect(await worker.deliverDue()).toBe(0);
    expect(receiver.received).toHaveLength(1);
    await client.deleteWebhookEndpoint({ accountId: ACCOUNT, actor: ACTOR, endpointId: overdue.endpoint!.id });
    await client.deleteWebhookEndpoint({ accountId: ACCOUNT, actor: ACTOR, endpointId: rules.endpoint!.id });
  });

  it("the receiver answers 500 three times, then 200: retried with doubling waits, delivered once more, never lost", async () => {
    const { endpoint, signingSecret } = await register("/flaky", ["corrective_action.overdue"]);
    receiver.answer = (_r, n) => (n <= 3 ? { status: 500, body: "busy" } : { status: 200, body: "thanks" });
    const eventId = (await record(await newSite(), "corrective_action.overdue", "ca_1"))!;
    const waits: number[] = [];
    for (let attempt = 1; attempt <= 4; attempt++) {
      expect(await worker.deliverDue()).toBe(1);
      expect(receiver.received).toHaveLength(attempt);
      const d = await deliveryOf(eventId);
      if (attempt < 4) {
        waits.push(Date.parse(d.next_attempt_at) - clock.now());
        clock.set(Date.parse(d.next_attempt_at) - 1);
        expect(await worker.deliverDue()).toBe(0); // not before it is due
        clock.advance(1);
      }
    }
    expect(waits).toEqual([10_000, 20_000, 40_000]);
    expect((await deliveryOf(eventId)).state).toBe("delivered");
    expect(new Set(receiver.received.map((r) => r.headers["webhook-id"]))).toEqual(new Set([eventId]));
    for (const r of receiver.received) expect(verifiedAt(signingSecret, r, Number(r.headers["webhook-timestamp"]) * 1000)).toMatchObject({ type: "corrective_action.overdue" });
    clock.advance(24 * HOUR);
    expect(await worker.deliverDue()).toBe(0);
    const log = await client.listWebhookAttempts({ accountId: ACCOUNT, actor: ACTOR, endpointId: endpoint!.id });
    expect(log.attempts.map((a) => [a.attempt, a.statusCode, a.responseExcerpt, a.error])).toEqual([
      [4, 200, "thanks", ""],
      [3, 500, "busy", "The endpoint answered HTTP 500."],
      [2, 500, "busy", "The endpoint answered HTTP 500."],
      [1, 500, "busy", "The endpoint answered HTTP 500."],
    ]);
    await client.deleteWebhookEndpoint({ accountId: ACCOUNT, actor: ACTOR, endpointId: endpoint!.id });
  });

  it("retries for 3 days, then marks the endpoint failing and says why; the next success clears it", async () => {
    const { endpoint } = await register("/down", ["site.permit_expiring"]);
    receiver.answer = () => ({ status: 503, body: "maintenance" });
    const start = clock.now();
    const eventId = (await record(await newSite(), "site.permit_expiring", "2027-01-31"))!;
    let attempts = 0;
    for (let d = await deliveryOf(eventId); d.state === "pending"; d = await deliveryOf(eventId)) {
      clock.set(Math.max(clock.now(), Date.parse(d.next_attempt_at)));
      attempts += await worker.deliverDue();
    }
    expect(attempts).toBe(receiver.received.length);
    // 10 s doubling to the 4-hour cap, then every 4 hours, the last attempt at the 72-hour mark.
    expect(attempts).toBe(29);
    expect(clock.now() - start).toBe(72 * HOUR);
    const [listed] = (await client.listWebhookEndpoints({ accountId: ACCOUNT, actor: ACTOR })).endpoints.filter((e) => e.id === endpoint!.id);
    expect(listed!.failing).toBe(true);
    expect(listed!.failingSince).toBe(new Date(start + 72 * HOUR).toISOString());
    expect(listed!.failingReason).toBe(`An event (site.permit_expiring, ${eventId}) could not be delivered in 72 hours of retries (29 attempts). The last attempt, at ${new Date(start + 72 * HOUR).toISOString()}: The endpoint answered HTTP 503.`);

    receiver.answer = () => ({ status: 204 });
    const test = await client.sendTestWebhook({ accountId: ACCOUNT, actor: ACTOR, endpointId: endpoint!.id });
    expect(await worker.deliverDue()).toBe(1);
    expect(receiver.received.at(-1)!.headers["webhook-id"]).toBe(test.eventId);
    expect(JSON.parse(receiver.received.at(-1)!.body)).toMatchObject({ type: "webhook.test", data: { endpoint: { id: endpoint!.id } } });
    const [after] = (await client.listWebhookEndpoints({ accountId: ACCOUNT, actor: ACTOR })).endpoints.filter((e) => e.id === endpoint!.id);
    expect([after!.failing, after!.failingReason]).toEqual([false, ""]);
    await client.deleteWebhookEndpoint({ accountId: ACCOUNT, actor: ACTOR, endpointId: endpoint!.id });
  });

  it("after a rotation both the old and the new secret verify for 24 hours; then only the new", async () => {
    const created = await register("/rotating", ["site.rules_changed"]);
    const rotated = await client.rotateWebhookSecret({ accountId: ACCOUNT, actor: ACTOR, endpointId: created.endpoint!.id });
    expect(rotated.signingSecret).not.toBe(created.signingSecret);
    expect(rotated.endpoint!.previousSecretValidUntil).toBe(new Date(clock.now() + 24 * HOUR).toISOString());
    const siteId = await newSite();
    await record(siteId, "site.rules_changed", "v2", { datasetVersion: "v2" });
    await worker.deliverDue();
    const during = receiver.received.at(-1)!;
    expect(String(during.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    for (const secret of [created.signingSecret, rotated.signingSecret]) expect(verifiedAt(secret, during, clock.now())).toMatchObject({ data: { datasetVersion: "v2" } });

    clock.advance(24 * HOUR);
    await record(siteId, "site.rules_changed", "v3", { datasetVersion: "v3" });
    await worker.deliverDue();
    const after = receiver.received.at(-1)!;
    expect(String(after.headers["webhook-signature"]).split(" ")).toHaveLength(1);
    expect(verifiedAt(rotated.signingSecret, after, clock.now())).toMatchObject({ data: { datasetVersion: "v3" } });
    expect(() => verifiedAt(created.signingSecret, after, clock.now())).toThrow("No matching signature found");
    expect((await client.listWebhookEndpoints({ accountId: ACCOUNT, actor: ACTOR })).endpoints.find((e) => e.id === created.endpoint!.id)!.previousSecretValidUntil).toBe("");
    await client.deleteWebhookEndpoint({ accountId: ACCOUNT, actor: ACTOR, endpointId: created.endpoint!.id });
  });

  it("an attempt that never ends (its worker hung or killed) is taken over when its lease ends, and its late failure changes nothing", async () => {
    const { endpoint } = await register("/hangs", ["inspection.overdue"]);
    receiver.answer = () => ({ status: 0 });
    const eventId = (await record(await newSite(), "inspection.overdue", "lease"))!;
    const slow = { ...settings, timeoutMs: 60_000 };
    const hung = new DeliveryWorker(ctx, slow, () => 1).deliverDue();
    await vi.waitFor(() => expect(receiver.received).toHaveLength(1));
    const other = new DeliveryWorker(ctx, slow, () => 1);
    clock.advance(3 * 60_000 - 1);
    expect(await other.deliverDue()).toBe(0); // still leased
    clock.advance(1);
    receiver.answer = () => ({ status: 200, body: "second try" });
    expect(await other.deliverDue()).toBe(1);
    expect(receiver.received.map((r) => r.headers["webhook-id"])).toEqual([eventId, eventId]);
    receiver.release();
    expect(await hung).toBe(1);
    expect((await deliveryOf(eventId)).state).toBe("delivered");
    const log = (await client.listWebhookAttempts({ accountId: ACCOUNT, actor: ACTOR, endpointId: endpoint!.id })).attempts;
    // Newest first by when each attempt started: the hung one started first.
    expect(log.map((a) => [a.attempt, a.statusCode, a.delivered, a.retrying])).toEqual([
      [2, 200, true, false],
      [1, 0, false, false],
    ]);
    expect(log[1]!.error).toBe("The request failed (ECONNRESET).");
    await client.deleteWebhookEndpoint({ accountId: ACCOUNT, actor: ACTOR, endpointId: endpoint!.id });
  });

  it("gives up an attempt with no answer after the timeout", async () => {
    const { endpoint } = await register("/silent", ["inspection.overdue"]);
    receiver.answer = () => ({ status: 0 });
    await record(await newSite(), "inspection.overdue", "timeout");
    const started = Date.now();
    expect(await new DeliveryWorker(ctx, { ...settings, timeoutMs: 300 }, () => 1).deliverDue()).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    const [attempt] = (await client.listWebhookAttempts({ accountId: ACCOUNT, actor: ACTOR, endpointId: endpoint!.id })).attempts;
    expect([attempt!.statusCode, attempt!.error, attempt!.retrying]).toEqual([0, "No answer within 0.3 seconds.", true]);
  });

  it("does not follow a redirect, and keeps at most the first 1 KB of an answer", async () => {
    const { endpoint } = await register("/moved", ["inspection.overdue"]);
    receiver.answer = (r) => (r.path === "/moved" ? { status: 302, headers: { location: `${receiver.origin}/new-home` }, body: "x".repeat(5000) } : { status: 200 });
    const eventId = (await record(await newSite(), "inspection.overdue", "redirect"))!;
    await worker.deliverDue();
    expect(receiver.received.map((r) => r.path)).toEqual(["/moved"]);
    let [attempt] = (await client.listWebhookAttempts({ accountId: ACCOUNT, actor: ACTOR, endpointId: endpoint!.id })).attempts;
    expect([attempt!.statusCode, attempt!.delivered, attempt!.retrying, attempt!.error]).toEqual([302, false, true, `The endpoint answered with a redirect (HTTP 302 to ${receiver.origin}/new-home); redirects are not followed.`]);
    expect(attempt!.responseExcerpt).toBe("x".repeat(1024));

    // Two-byte characters: the excerpt stops at 1 KB without splitting one.
    receiver.answer = () => ({ status: 200, body: `a${"é".repeat(3000)}` });
    clock.set(Date.parse((await deliveryOf(eventId)).next_attempt_at));
    await worker.deliverDue();
    [attempt] = (await client.listWebhookAttempts({ accountId: ACCOUNT, actor: ACTOR, endpointId: endpoint!.id })).attempts;
    expect(attempt!.delivered).toBe(true);
    expect(attempt!.responseExcerpt).toBe(`a${"é".repeat(511)}`);
    expect(Buffer.byteLength(attempt!.responseExcerpt)).toBe(1023);

    // A NUL in an answer (which PostgreSQL's text cannot hold) is kept as U+FFFD.
    receiver.answer = () => ({ status: 200, body: "bad\u0000byte" });
    clock.advance(1000);
    await client.sendTestWebhook({ accountId: ACCOUNT, actor: ACTOR, endpointId: endpoint!.id });
    await worker.deliverDue();
    [attempt] = (await client.listWebhookAttempts({ accountId: ACCOUNT, actor: ACTOR, endpointId: endpoint!.id })).attempts;
    expect([attempt!.delivered, attempt!.responseExcerpt]).toEqual([true, "bad\uFFFDbyte"]);
    await client.deleteWebhookEndpoint({ accountId: ACCOUNT, actor: ACTOR, endpointId: endpoint!.id });
  });

  it("refuses non-https, loopback, private and link-local targets unless private ones are allowed, at registration and at delivery", async () => {
    const strict = { ...ctx, webhooks: { ...settings, policy: { allowPrivate: false } } };
    const strictClient = createClient(SitesService, createRouterTransport(({ service }) => service(SitesService, createSitesService(strict))));
    const problem = async (url: string) => {
      const err = await failure(strictClient.createWebhookEndpoint({ accountId: ACCOUNT, actor: ACTOR, url, events: ["inspection.overdue"] }));
      expect(err.code).toBe(Code.InvalidArgument);
      return badRequestOf(err)!.violations.map((v) => `${v.field}: ${v.description}`);
    };
    expect(await problem(`${receiver.origin}/hook`)).toEqual(["url: The address must start with https:// (deliveries are only sent encrypted)."]);
    expect(await problem("ftp://example.com/hook")).toEqual(["url: The address must start with https:// (deliveries are only sent encrypted)."]);
    expect(await problem("https://127.0.0.1/hook")).toEqual(["url: 127.0.0.1 is at 127.0.0.1, a private, loopback or link-local address, which deliveries are never sent to."]);
    expect(await problem("https://localhost:8443/hook")).toEqual([expect.stringMatching(/^url: localhost is at (127\.0\.0\.1|::1), a private, loopback or link-local address/)]);
    expect(await problem("https://10.0.0.5/hook")).toEqual(["url: 10.0.0.5 is at 10.0.0.5, a private, loopback or link-local address, which deliveries are never sent to."]);
    expect(await problem("https://192.168.1.20/hook")).toEqual(["url: 192.168.1.20 is at 192.168.1.20, a private, loopback or link-local address, which deliveries are never sent to."]);
    expect(await problem("https://169.254.169.254/latest")).toEqual(["url: 169.254.169.254 is at 169.254.169.254, a private, loopback or link-local address, which deliveries are never sent to."]);
    expect(await problem("https://[fe80::1]/hook")).toEqual(["url: fe80::1 is at fe80::1, a private, loopback or link-local address, which deliveries are never sent to."]);
    expect(await problem("https://[::ffff:10.0.0.1]/hook")).toEqual(["url: ::ffff:a00:1 is at ::ffff:a00:1, a private, loopback or link-local address, which deliveries are never sent to."]);
    expect(await problem("not a url")).toEqual(["url: Give a full address starting with https://."]);
    const both = await failure(strictClient.createWebhookEndpoint({ accountId: ACCOUNT, actor: ACTOR, url: "", events: ["site.moved"] }));
    expect(badRequestOf(both)!.violations.map((v) => v.field)).toEqual(["url", "events"]);
    // A public address is accepted (nothing is sent at registration).
    const publicOne = await strictClient.createWebhookEndpoint({ accountId: ACCOUNT, actor: ACTOR, url: "https://93.184.215.14/hooks/permits", events: ["inspection.overdue"] });
    await strictClient.deleteWebhookEndpoint({ accountId: ACCOUNT, actor: ACTOR, endpointId: publicOne.endpoint!.id });

    // Registered while private targets were allowed, then delivered by a worker that refuses them: nothing leaves.
    const { endpoint } = await register("/inside", ["inspection.overdue"]);
    await record(await newSite(), "inspection.overdue", "strict");
    expect(await new DeliveryWorker(strict, strict.webhooks, () => 1).deliverDue()).toBe(1);
    expect(receiver.received).toEqual([]);
    const [attempt] = (await client.listWebhookAttempts({ accountId: ACCOUNT, actor: ACTOR, endpointId: endpoint!.id })).attempts;
    expect([attempt!.statusCode, attempt!.error]).toEqual([0, "127.0.0.1 is at 127.0.0.1, a private, loopback or link-local address, which deliveries are never sent to."]);
    await client.deleteWebhookEndpoint({ accountId: ACCOUNT, actor: ACTOR, endpointId: endpoint!.id });
  });

  it("an account sees and changes only its own endpoints; removing one drops its queued deliveries", async () => {
    const { endpoint } = await register("/mine", ["inspection.overdue"]);
    const other = { accountId: OTHER_ACCOUNT, actor: ACTOR, endpointId: endpoint!.id };
    for (const call of [() => client.updateWebhookEndpoint({ ...other, events: ["site.rules_changed"] }), () => client.rotateWebhookSecret(other), () => client.listWebhookAttempts(other), () => client.sendTestWebhook(other), () => client.deleteWebhookEndpoint(other)]) expect((await failure(call())).code).toBe(Code.NotFound);
    expect((await client.listWebhookEndpoints({ accountId: OTHER_ACCOUNT, actor: ACTOR })).endpoints.map((e) => e.url)).not.toContain(`${receiver.origin}/mine`);
    const eventId = (await record(await newSite(), "inspection.overdue", "dropped"))!;
    await client.deleteWebhookEndpoint({ accountId: ACCOUNT, actor: ACTOR, endpointId: endpoint!.id });
    expect(await ctx.db.selectFrom("webhook_deliveries").select("id").where("event_id", "=", eventId).execute()).toEqual([]);
    expect(await worker.deliverDue()).toBe(0);
    expect(receiver.received).toEqual([]);
  });

  it("changing an endpoint's events routes the next events by the new choice", async () => {
    const { endpoint } = await register("/choosy", ["inspection.overdue"]);
    const siteId = await newSite();
    const bad = await failure(client.updateWebhookEndpoint({ accountId: ACCOUNT, actor: ACTOR, endpointId: endpoint!.id, events: [] }));
    expect(badRequestOf(bad)!.violations.map((v) => `${v.field}: ${v.description}`)).toEqual(["events: Choose at least one event."]);
    const updated = await client.updateWebhookEndpoint({ accountId: ACCOUNT, actor: ACTOR, endpointId: endpoint!.id, events: ["corrective_action.overdue", "site.rules_changed"] });
    expect(updated.endpoint!.events).toEqual(["site.rules_changed", "corrective_action.overdue"]);
    await record(siteId, "inspection.overdue", "after-update");
    const wanted = await record(siteId, "site.rules_changed", "after-update", { datasetVersion: "v9" });
    await worker.deliverDue();
    expect(receiver.received.map((r) => r.headers["webhook-id"])).toEqual([wanted]);
  });

  it("a site's purge removes its deliveries and their log; the endpoint stays", async () => {
    const now = clock.now();
    const { endpoint } = await register("/purged", ["inspection.overdue"]);
    clock.set(Date.parse("2019-06-01T10:00:00Z"));
    const siteId = await newSite();
    await record(siteId, "inspection.overdue", "2019-06-01");
    expect(await worker.deliverDue()).toBe(1);
    clock.set(Date.parse("2020-01-15T10:00:00Z"));
    await client.closeSite({ accountId: ACCOUNT, actor: ACTOR, siteId, closedOn: "2020-01-15" });
    clock.set(now);
    expect((await client.purgeExpired({ actor: "admin" })).purgedSiteIds).toEqual([siteId]);
    expect(await ctx.db.selectFrom("webhook_deliveries").select("id").where("site_id", "=", siteId).execute()).toEqual([]);
    expect((await client.listWebhookAttempts({ accountId: ACCOUNT, actor: ACTOR, endpointId: endpoint!.id })).attempts).toEqual([]);
    await client.deleteWebhookEndpoint({ accountId: ACCOUNT, actor: ACTOR, endpointId: endpoint!.id });
  });

  it("two workers (replicas) draining one queue deliver each event exactly once", async () => {
    const { endpoint } = await register("/busy", ["inspection.overdue"]);
    const siteId = await newSite();
    const ids = new Set<string>();
    for (let n = 0; n < 25; n++) ids.add((await record(siteId, "inspection.overdue", `replica-${n}`))!);
    const other = new DeliveryWorker(ctx, settings, () => 1);
    while ((await Promise.all([worker.deliverDue(), other.deliverDue()])).some((n) => n > 0));
    expect(receiver.received).toHaveLength(25);
    expect(new Set(receiver.received.map((r) => String(r.headers["webhook-id"])))).toEqual(ids);
    await client.deleteWebhookEndpoint({ accountId: ACCOUNT, actor: ACTOR, endpointId: endpoint!.id });
  });
});

it("backoff doubles from the base up to the cap, with jitter between half and all of it", () => {
  const s = { retryBaseMs: 10_000, retryMaxMs: 4 * HOUR };
  expect([1, 2, 3, 4].map((n) => backoffMs(s, n, () => 1))).toEqual([10_000, 20_000, 40_000, 80_000]);
  expect(backoffMs(s, 3, () => 0)).toBe(20_000);
  expect(backoffMs(s, 30, () => 1)).toBe(4 * HOUR);
  expect(backoffMs(s, 1000, () => 0.5)).toBe(3 * HOUR);
});
