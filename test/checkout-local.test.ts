// Checkout with the local payment provider (the embedded default, PAYMENT_PROVIDER=local): Buy
// leads to a local confirmation page that completes the same fulfilment as a paid Stripe
// checkout; it is served only on a loopback address, to this machine. In Debian's chromium: a
// newcomer clicks Buy on /pricing, confirms, reads the keys off the success page and uses one.
import type { AddressInfo } from "node:net";
import puppeteer, { type Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { SubscriptionStatus } from "@permits/proto/entitlement/v1/entitlement";
import { startEmbedded, type Embedded } from "./support/embedded.js";
import { CHROMIUM_PATH } from "./support/prerequisites.js";

const FORM = { "content-type": "application/x-www-form-urlencoded" };
const site = JSON.stringify({ state: "NM", activity: "construction", acres: 3 });
const project = JSON.stringify({ state: "CA", district: "SPK", activity: "residential-development", aquaticResourceType: "wetland", permanentImpactAcres: 0.3 });

describe("local checkout over inject()", () => {
  let gw: Embedded;
  beforeAll(async () => {
    gw = await startEmbedded();
  }, 60_000);
  afterAll(async () => gw?.close());

  const post = (url: string, payload: string) => gw.app.inject({ method: "POST", url, payload, headers: FORM });
  const get = (url: string, headers: Record<string, string> = {}) => gw.app.inject({ method: "GET", url, headers });

  /** Buy and confirm: the success page's URL. */
  async function buyLocally(plan: string): Promise<{ sessionId: string; success: string }> {
    const started = await post("/checkout", `plan=${plan}`);
    expect(started.statusCode).toBe(303);
    const to = new URL(started.headers.location as string);
    expect(to.pathname).toBe("/checkout/local");
    expect(to.searchParams.get("plan")).toBe(plan);
    const sessionId = to.searchParams.get("session_id")!;
    expect(sessionId).toMatch(/^cs_local_\w{32}$/);
    const confirm = await get(to.pathname + to.search);
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain("no money moves");
    const confirmed = await post("/checkout/local/confirm", `session_id=${sessionId}`);
    expect(confirmed.statusCode).toBe(303);
    return { sessionId, success: confirmed.headers.location as string };
  }

  it("shows the plans as buyable at no charge on /pricing", async () => {
    const page = await get("/pricing", { accept: "text/html" });
    expect(page.body).toContain('data-plan="stormwater_pro"');
    expect(page.body).toContain("no charge (local test mode)");
  });

  it("completes the same fulfilment as Stripe: keys once, the plan's quota, cancelled from the manage page", async () => {
    const { success } = await buyLocally("stormwater_pro");
    const shown = (await get(success, { accept: "application/json" })).json().data;
    expect(shown.outcome).toBe("shown");
    expect(shown.subscription_id).toMatch(/^sub_local_\w{24}$/);
    const live = shown.keys.find((k: { kind: string }) => k.kind === "live").key as string;
    expect((await get(success, { accept: "application/json" })).json().data.outcome).toBe("already_shown");
    // Confirming again issues nothing new either.
    const sessionId = new URL(success, "http://x").searchParams.get("session_id")!;
    expect((await post("/checkout/local/confirm", `session_id=${sessionId}`)).statusCode).toBe(303);
    expect((await get(success, { accept: "application/json" })).json().data.outcome).toBe("already_shown");

    const determine = () => gw.app.inject({ method: "POST", url: "/api/v1/determine", payload: site, headers: { "content-type": "application/json", authorization: `Bearer ${live}` } });
    const ok = await determine();
    expect(ok.statusCode).toBe(200);
    expect(ok.headers["x-quota-limit"]).toBe("1000");

    const portal = await post("/checkout/portal", `api_key=${live}`);
    expect(portal.statusCode).toBe(303);
    expect(portal.headers.location).toMatch(/\/checkout\/local\/manage\?session_id=cs_local_\w+$/);
    const manage = await get(new URL(portal.headers.location as string).pathname + new URL(portal.headers.location as string).search);
    expect(manage.statusCode).toBe(200);
    expect(manage.body).toContain('Plan: <strong id="plan">Stormwater Pro</strong><br>Status: <strong id="status">Active</strong>');
    expect(manage.body).toContain('id="cancel"');
    const cancelled = await post("/checkout/local/cancel", `session_id=${sessionId}`);
    expect(cancelled.statusCode).toBe(200);
    expect(cancelled.body).toContain("Subscription cancelled");
    expect(cancelled.body).toContain('Status: <strong id="status">Cancelled</strong>');
    expect(cancelled.body).toContain("The subscription is cancelled: the plan&#39;s live key (svc_live_…) stops working at once; the free test key (svc_test_…) keeps working.");
    expect(cancelled.body).not.toContain('id="cancel"');
    expect((await determine()).statusCode).toBe(401);
    // Opened again after cancelling: the status, and no Cancel.
    const after = await get(`/checkout/local/manage?session_id=${sessionId}`);
    expect(after.body).toContain('Status: <strong id="status">Cancelled</strong>');
    expect(after.body).not.toContain('id="cancel"');
  });

  it("NWP Pro cancelled from the manage page: its key keeps working on the free allowance, and the page says so", async () => {
    const { sessionId, success } = await buyLocally("nwp_pro");
    const key = (await get(success, { accept: "application/json" })).json().data.keys[0].key as string;
    const manage = await get(`/checkout/local/manage?session_id=${sessionId}`);
    expect(manage.body).toContain('Plan: <strong id="plan">Nationwide Permit (NWP) Pro</strong><br>Status: <strong id="status">Active</strong>');
    expect(manage.body).toContain("Cancelling ends the plan: the NWP Pro key (nwp_…) keeps working, on the free allowance.");
    const cancelled = await post("/checkout/local/cancel", `session_id=${sessionId}`);
    expect(cancelled.body).toContain("The subscription is cancelled: the NWP Pro key (nwp_…) keeps working, on the free allowance.");
    expect(cancelled.body).not.toContain("live key");
    expect(cancelled.body).not.toContain('id="cancel"');
    const call = await gw.app.inject({ method: "POST", url: "/api/v1/determine/nwp", payload: project, headers: { "content-type": "application/json", "x-api-key": key } });
    expect(call.headers["x-service-tier"]).toBe("free");
  });

  it("a purchase not confirmed yet: its plan, Not confirmed yet, nothing to cancel; an unknown session is not found", async () => {
    const started = await post("/checkout", "plan=stormwater_scale");
    const sessionId = new URL(started.headers.location as string).searchParams.get("session_id")!;
    const manage = await get(`/checkout/local/manage?session_id=${sessionId}`);
    expect(manage.body).toContain('Plan: <strong id="plan">Stormwater Scale</strong><br>Status: <strong id="status">Not confirmed yet</strong>');
    expect(manage.body).not.toContain('id="cancel"');
    const unknown = await get(`/checkout/local/manage?session_id=cs_local_${"x".repeat(32)}`);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe("not_found");
  });

  it("NWP Pro: the legacy key, Pro while the local subscription is active, free once cancelled", async () => {
    const { success } = await buyLocally("nwp_pro");
    const shown = (await get(success, { accept: "application/json" })).json().data;
    const key = shown.keys[0].key as string;
    const call = () => gw.app.inject({ method: "POST", url: "/api/v1/determine/nwp", payload: project, headers: { "content-type": "application/json", "x-api-key": key } });
    expect((await call()).headers["x-service-tier"]).toBe("pro");
    await gw.clients.entitlement.setLocalSubscription({ subscriptionId: shown.subscription_id, status: SubscriptionStatus.CANCELED });
    expect((await call()).headers["x-service-tier"]).toBe("free");
  });

  it("answers a JSON caller with where to go instead of a redirect", async () => {
    const res = await gw.app.inject({ method: "POST", url: "/checkout", payload: JSON.stringify({ plan: "nwp_pro" }), headers: { "content-type": "application/json", accept: "application/json" } });
    expect(res.statusCode).toBe(200);
    const { checkout_url, session_id } = res.json().data;
    expect(session_id).toMatch(/^cs_local_\w{32}$/);
    expect(checkout_url).toBe(`http://localhost/checkout/local?session_id=${session_id}&plan=nwp_pro`);
    const confirmed = await gw.app.inject({ method: "POST", url: "/checkout/local/confirm", payload: JSON.stringify({ session_id }), headers: { "content-type": "application/json", accept: "application/json" } });
    expect(confirmed.json().data.success_url).toBe(`/checkout/success?session_id=${session_id}`);
  });

  it("refuses the local pages to a request that came through a proxy", async () => {
    const res = await gw.app.inject({ method: "POST", url: "/checkout", payload: "plan=stormwater_pro", headers: { ...FORM, "x-forwarded-for": "203.0.113.9" } });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe("not_found");
  });
});

describe("local checkout on a non-loopback address", () => {
  let gw: Embedded;
  beforeAll(async () => {
    gw = await startEmbedded({ HOST: "0.0.0.0" });
  }, 60_000);
  afterAll(async () => gw?.close());

  it("sells nothing and serves no local page", async () => {
    const page = await gw.app.inject({ method: "GET", url: "/pricing", headers: { accept: "text/html" } });
    expect(page.body).toContain("local checkout is served only on a loopback address");
    expect(page.body).not.toContain('data-plan="stormwater_pro"');
    const buy = await gw.app.inject({ method: "POST", url: "/checkout", payload: "plan=stormwater_pro", headers: FORM });
    expect(buy.statusCode).toBe(404);
    expect((await gw.app.inject({ method: "GET", url: "/checkout/local?session_id=cs_local_x" })).statusCode).toBe(404);
  });
});

describe.skipIf(!inject("prerequisites").chromium)("local checkout in chromium", () => {
  let gw: Embedded;
  let base: string;
  let browser: Browser | undefined;
  beforeAll(async () => {
    gw = await startEmbedded();
    await gw.app.listen({ host: "127.0.0.1", port: 0 });
    base = `http://127.0.0.1:${(gw.app.server.address() as AddressInfo).port}`;
    browser = await puppeteer.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await gw?.close();
  });

  it("clicks Buy on /pricing, confirms, reads the keys off the success page and uses the live key", async () => {
    const page = await browser!.newPage();
    await page.goto(`${base}/pricing`);
    await Promise.all([page.waitForNavigation(), page.click('button[data-plan="stormwater_scale"]')]);
    expect(new URL(page.url()).pathname).toBe("/checkout/local");
    await Promise.all([page.waitForNavigation(), page.click("#confirm")]);
    expect(new URL(page.url()).pathname).toBe("/checkout/success");
    const live = await page.$eval('code.api-key[data-kind="live"]', (el) => el.textContent ?? "");
    const test = await page.$eval('code.api-key[data-kind="test"]', (el) => el.textContent ?? "");
    expect(live).toMatch(/^svc_live_\w{40}$/);
    expect(test).toMatch(/^svc_test_\w{40}$/);

    const res = await fetch(`${base}/api/v1/determine`, { method: "POST", body: site, headers: { "content-type": "application/json", authorization: `Bearer ${live}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-quota-limit")).toBe("10000");

    // Reloaded: the keys are not shown again.
    await page.reload();
    expect(await page.$('code.api-key')).toBeNull();
    expect(await page.$eval("#already-shown", (el) => el.textContent)).toContain("not shown again");
    await page.close();
  });
});
