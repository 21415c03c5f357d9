// The app's webhook settings (issue 42) through inject(), with the embedded deployment's own
// delivery worker posting to a receiver on 127.0.0.1 (WEBHOOK_ALLOW_PRIVATE=1): registering an
// endpoint shows its secret once, a test event arrives signed and shows in the delivery log
// (escaped), a rotation signs with both secrets, refusals are shown beside the field, another
// account sees nothing, and a cancelled plan's read-only workspace cannot add endpoints.
import { afterAll, beforeAll, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { KeyKind, Plan, SubscriptionStatus } from "@permits/proto/entitlement/v1/entitlement";
import { type Receiver, startReceiver, webhookHeaders } from "@permits/sites/testing";
import { startEmbedded, type Embedded } from "./support/embedded.js";
import { AppVisitor } from "./support/app-browser.js";

const PAGE = "/app/settings/webhooks";
let t: Embedded;
let receiver: Receiver;

async function signedIn(key: string): Promise<AppVisitor> {
  const v = new AppVisitor(t.app);
  expect((await v.signIn(key)).statusCode).toBe(303);
  await v.get("/app");
  return v;
}

async function until(what: string, check: () => boolean): Promise<void> {
  const end = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const secretOf = (body: string) => /<code>(whsec_[A-Za-z0-9+/=]+)<\/code>/.exec(body)?.[1];

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startEmbedded({ WEBHOOK_ALLOW_PRIVATE: "1", WEBHOOK_POLL_MS: "50" });
}, 120_000);

afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

it("registers an endpoint (secret shown once), delivers a signed test event, shows the log escaped, and rotates with both secrets signing", async () => {
  const key = (await t.clients.entitlement.issueKey({ kind: KeyKind.LIVE, plan: Plan.PRO, label: "webhooks" })).secret;
  const v = await signedIn(key);
  const empty = await v.get(PAGE);
  expect(empty.statusCode).toBe(200);
  expect(empty.body).toContain("No endpoints yet.");
  expect(empty.body).toContain('<a href="/app/settings/webhooks">Webhooks</a>');

  const refused = await v.post(PAGE, { url: "http://example.com/hook" });
  expect(refused.statusCode).toBe(400);
  expect(refused.body).toContain('<span class="field-error" id="url-error">The address must start with https:// (deliveries are only sent encrypted).</span>');
  expect(refused.body).toContain('<span class="field-error" id="events-error">Choose at least one event.</span>');
  expect(refused.body).toContain('value="http://example.com/hook"');

  const url = `${receiver.origin}/app-hook?from=<app>`;
  const created = await v.post(PAGE, { url, "event_inspection.overdue": "true", "event_site.rules_changed": "true" });
  expect(created.statusCode, created.body).toBe(200);
  const secret = secretOf(created.body)!;
  expect(secret).toMatch(/^whsec_/);
  expect(created.body).toContain(`${receiver.origin}/app-hook?from=&lt;app&gt;`);
  expect(created.body).toContain("Receives: site.rules_changed, inspection.overdue.");
  const again = await v.get(PAGE);
  expect(again.body).not.toContain(secret);
  expect(secretOf(again.body)).toBeUndefined();
  const endpointId = /<li id="(whe_[0-9a-f]+)">/.exec(again.body)![1]!;

  const changed = await v.post(`${PAGE}/${endpointId}/events`, { "event_corrective_action.overdue": "true" });
  expect([changed.statusCode, changed.headers.location]).toEqual([303, `${PAGE}#${endpointId}`]);
  expect((await v.get(PAGE)).body).toContain("Receives: corrective_action.overdue.");

  receiver.answer = () => ({ status: 200, body: "<script>alert(1)</script>" });
  const test = await v.post(`${PAGE}/${endpointId}/test`, {});
  expect([test.statusCode, test.headers.location]).toEqual([303, `${PAGE}#${endpointId}`]);
  await until("the test event arrives", () => receiver.received.length === 1);
  const got = receiver.received[0]!;
  expect(new Webhook(secret).verify(got.body, webhookHeaders(got))).toMatchObject({ type: "webhook.test", data: { endpoint: { id: endpointId } } });
  // The log is written just after the answer: wait for it on the page.
  let log = "";
  const end = Date.now() + 10_000;
  while (!log.includes("Delivered") && Date.now() < end) log = (await v.get(PAGE)).body;
  expect(log).toContain(`webhook.test <span class="muted">${String(got.headers["webhook-id"])}</span>`);
  expect(log).toContain("HTTP 200: Delivered");
  expect(log).toContain("<code>&lt;script&gt;alert(1)&lt;/script&gt;</code>");
  expect(log).not.toContain("<script>alert(1)</script>");

  const rotated = await v.post(`${PAGE}/${endpointId}/rotate`, {});
  expect(rotated.statusCode).toBe(200);
  const next = secretOf(rotated.body)!;
  expect(next).not.toBe(secret);
  expect(rotated.body).toContain("The previous secret also signs until");
  await v.post(`${PAGE}/${endpointId}/test`, {});
  await until("the second test event arrives", () => receiver.received.length === 2);
  const signedTwice = receiver.received[1]!;
  for (const s of [secret, next]) expect(new Webhook(s).verify(signedTwice.body, webhookHeaders(signedTwice))).toMatchObject({ type: "webhook.test" });

  // Another account neither sees nor changes it.
  const other = await signedIn((await t.clients.entitlement.issueKey({ kind: KeyKind.LIVE, plan: Plan.SCALE, label: "other" })).secret);
  expect((await other.get(PAGE)).body).not.toContain(endpointId);
  expect((await other.post(`${PAGE}/${endpointId}/delete`, {})).statusCode).toBe(404);

  expect((await v.post(`${PAGE}/${endpointId}/delete`, {})).headers.location).toBe(PAGE);
  expect((await v.get(PAGE)).body).toContain("No endpoints yet.");
}, 60_000);

it("a cancelled plan's read-only workspace shows no form and cannot add an endpoint", async () => {
  const { sessionId } = await t.clients.entitlement.startCheckout({ planId: "stormwater_pro", successUrl: "http://localhost/s?session_id={CHECKOUT_SESSION_ID}", cancelUrl: "http://localhost/c" });
  const { subscriptionId } = await t.clients.entitlement.completeLocalCheckout({ sessionId });
  const live = (await t.clients.entitlement.revealCheckout({ sessionId })).keys.find((k) => k.kind === KeyKind.LIVE)!.secret;
  await t.clients.entitlement.setLocalSubscription({ subscriptionId, status: SubscriptionStatus.CANCELED });
  const v = await signedIn(live);
  const shown = await v.get(PAGE);
  expect(shown.statusCode).toBe(200);
  expect(shown.body).not.toContain("Add an endpoint");
  const refused = await v.post(PAGE, { url: `${receiver.origin}/late`, "event_inspection.overdue": "true" });
  expect(refused.statusCode).toBe(403);
  expect(refused.body).toContain("Your plan has been cancelled");
  expect((await v.get(PAGE)).body).toContain("No endpoints yet.");
}, 60_000);
