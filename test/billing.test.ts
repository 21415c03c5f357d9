// Plans bill answers: a paid key's monthly quota counts only answered requests (2xx to GET or
// POST on a metered route, not replays); the per-minute throttle counts every request.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeyKind, Plan, SubscriptionStatus } from "@permits/proto/entitlement/v1/entitlement";
import { deriveLegacyKey } from "@permits/entitlement";
import { DEPLOYMENTS, startTarget, type Target, type TargetResponse } from "./support/target.js";

const site = JSON.stringify({ state: "NM", activity: "construction", acres: 3 });
const LEGACY_KEY_SECRET = "billing-legacy-secret-0123456789";

describe.each(DEPLOYMENTS)("billing on the %s deployment", (name) => {
  let t: Target;
  let key: string;
  beforeAll(async () => {
    t = await startTarget(name, { LEGACY_KEY_SECRET });
    key = (await t.entitlement.issueKey({ kind: KeyKind.LIVE, plan: Plan.PRO, label: "billing" })).secret;
  }, 60_000);
  afterAll(async () => t?.close());

  const auth = () => ({ authorization: `Bearer ${key}` });
  const post = (payload: string, headers: Record<string, string> = {}) =>
    t.request({ method: "POST", url: "/api/v1/determine", payload, headers: { "content-type": "application/json", ...auth(), ...headers } });
  const used = (r: TargetResponse) => Number(r.headers["x-quota-used"]);
  const usage = async () => {
    const body = (await t.request({ method: "GET", url: "/api/v1/usage", headers: auth() })).json();
    const windows = body.data.windows as Array<{ name: string; used: number }>;
    return Object.fromEntries(windows.map((w) => [w.name, w.used]));
  };

  it("counts an answer, and gives back the units of every refused or failed request before its headers go out", async () => {
    const first = await post(site);
    expect(first.statusCode).toBe(200);
    const base = used(first);
    expect(base).toBeGreaterThanOrEqual(1);
    const start = await usage();

    const failures: Array<[string, () => Promise<TargetResponse>, number]> = [
      ["invalid JSON", () => post("{not json"), 400],
      ["a missing field", () => post(JSON.stringify({ state: "NM", acres: 3 })), 400],
      ["an oversized body", () => post(JSON.stringify({ state: "NM", activity: "construction", acres: 3, pad: "x".repeat(70_000) })), 413],
      ["an unknown jurisdiction code", () => t.request({ method: "GET", url: "/api/v1/jurisdictions/ZZ", headers: auth() }), 400],
      ["HEAD", () => t.request({ method: "HEAD", url: "/api/v1/jurisdictions", headers: auth() }), 200],
    ];
    for (const [what, call, status] of failures) {
      const res = await call();
      expect(res.statusCode, what).toBe(status);
      // The headers show the standing after the refund: nothing spent.
      expect(used(res), what).toBe(base);
      expect(Number(res.headers["x-quota-remaining"]), what).toBe(Number(first.headers["x-quota-limit"]) - base);
    }
    const after = await usage();
    expect(after.month).toBe(start.month);
    // The throttle kept every one of them.
    expect(after.minute).toBe(start.minute + failures.length);

    const answered = await t.request({ method: "GET", url: "/api/v1/jurisdictions", headers: auth() });
    expect(answered.statusCode).toBe(200);
    expect(used(answered)).toBe(base + 1);
    expect((await usage()).month).toBe(base + 1);
  });

  it("an idempotent replay spends nothing; the first answer is billed once", async () => {
    const headers = { "idempotency-key": `billing-${name}` };
    const before = (await usage()).month;
    const first = await post(site, { ...headers, "x-request-id": `first-${name}` });
    expect(first.statusCode).toBe(200);
    const replay = await post(site, { ...headers, "x-request-id": `again-${name}` });
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    expect((await usage()).month).toBe(before + 1);
    // The replay's headers are the caller's standing now; its body is the first answer, whose
    // request_id names the request that computed it, while X-Request-Id names this one.
    expect(replay.headers["x-quota-used"]).toBe(String(before + 1));
    expect(replay.headers["x-ratelimit-limit"]).toBe(first.headers["x-ratelimit-limit"]);
    expect(replay.headers["x-ratelimit-remaining"]).toBeDefined();
    expect(replay.headers["ratelimit-policy"]).toBe(first.headers["ratelimit-policy"]);
    expect(replay.headers["x-request-id"]).toBe(`again-${name}`);
    expect(replay.json().request_id).toBe(`first-${name}`);
    expect(replay.body).toBe(first.body);
  });

  it("a document 2 Pro subscriber reads its usage at /api/v1/usage, in document 2's envelope and vocabulary", async () => {
    await t.entitlement.setLocalSubscription({ subscriptionId: `sub_usage_${name}`, status: SubscriptionStatus.ACTIVE });
    const legacy = { "x-api-key": deriveLegacyKey(LEGACY_KEY_SECRET, `sub_usage_${name}`) };
    expect((await t.request({ method: "GET", url: "/api/v1/activity", headers: legacy })).statusCode).toBe(200);
    const res = await t.request({ method: "GET", url: "/api/v1/usage", headers: legacy });
    expect(res.statusCode).toBe(200);
    expect(res.headers["x-service-tier"]).toBe("pro");
    const body = res.json();
    expect(body.data).toMatchObject({ tier: "pro", policy: "nwp.pro" });
    expect(body.data.windows.map((w: { name: string; used: number }) => [w.name, w.used])).toEqual([["day", 1]]);
    expect(body.meta.requestId).toBe(res.headers["x-request-id"]);
    expect(body.meta.ruleset).toBeTruthy();
    expect(res.headers["x-ratelimit-remaining"]).toBe(String(body.data.windows[0].remaining));
    // Reading it spent nothing.
    expect((await t.request({ method: "GET", url: "/api/v1/usage", headers: legacy })).json().data.windows[0].used).toBe(1);
    // A forged legacy key is refused in document 2's vocabulary, with the sandbox standing.
    const forged = { "x-api-key": deriveLegacyKey("another-secret-entirely-000000", `sub_usage_${name}`) };
    const refused = await t.request({ method: "GET", url: "/api/v1/usage", headers: forged });
    expect(refused.statusCode).toBe(401);
    expect(refused.json().error).toMatchObject({ code: "invalid_api_key", requestId: refused.headers["x-request-id"] });
    expect(refused.headers["x-service-tier"]).toBe("sandbox");
  });
});
