// The app's sign-in sessions live in the sites database, not in the gateway: two gateways that
// share one sites service, or one PostgreSQL database through a sites service each, and nothing
// else of their state (each its own STATE_DIR, no REDIS_URL, as the Kubernetes deployment runs
// them) know the same sessions: signed in on one, recognised on the other; signed out on one,
// refused on the other; idle for 12 hours, gone on both. And when the sites service cannot be
// reached, /app answers its own page in plain words, never a 500 or the error's text.
import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { KeyKind, Plan } from "@permits/proto/entitlement/v1/entitlement";
import { SITES_DB_FILE } from "@permits/sites";
import { type DbKind, postgresKind } from "@permits/sites/testing";
import { ManualClock, startEmbedded, type Embedded } from "./support/embedded.js";
import { AppVisitor } from "./support/app-browser.js";
import { freePort, TEST_TOKENS } from "./support/processes.js";

const HOUR = 3600_000;
const SIGNED_IN = "<h1>Your sites</h1>";
const SIGN_IN_PAGE = "<h1>Sign in to your sites</h1>";
const pgUp = inject("prerequisites").postgres;

interface Pair {
  a: Embedded;
  b: Embedded;
  close(): Promise<void>;
}

/** Gateway b reaches gateway a's entitlement (one key store, as replicas share one) and, as given, its sites. */
const PAIRS: Array<{ name: string; make: (clock: ManualClock) => Promise<Pair> }> = [
  {
    name: "one sites service",
    make: async (clock) => {
      const a = await startEmbedded({}, { clock });
      const b = await startEmbedded({}, { clock, clients: { entitlement: a.clients.entitlement, sites: a.clients.sites } });
      return { a, b, close: async () => void (await Promise.all([b.close(), a.close()])) };
    },
  },
  ...(pgUp
    ? [
        {
          name: "one PostgreSQL database, a sites service in each",
          make: async (clock: ManualClock) => {
            const db: DbKind | undefined = await postgresKind();
            if (!db) throw new Error("PostgreSQL answered the prerequisite check but no database could be created");
            const a = await startEmbedded({ DATABASE_URL: db.url() }, { clock });
            const b = await startEmbedded({ DATABASE_URL: db.url() }, { clock, clients: { entitlement: a.clients.entitlement } });
            return { a, b, close: async () => void (await Promise.all([b.close(), a.close()]), await db.cleanup()) };
          },
        },
      ]
    : []),
];
if (!pgUp) it.skip("two gateways on one PostgreSQL database (no PostgreSQL answers: see the run's opening lines)", () => {});

describe.each(PAIRS)("two gateways sharing $name", ({ make }) => {
  const clock = new ManualClock(Date.UTC(2026, 10, 28, 12));
  let pair: Pair;
  let key: string;

  beforeAll(async () => {
    pair = await make(clock);
    key = (await pair.a.clients.entitlement.issueKey({ kind: KeyKind.LIVE, plan: Plan.PRO, label: "replicas" })).secret;
  }, 120_000);
  afterAll(async () => {
    await pair?.close();
  });

  /** A browser signed in on gateway a, and the same browser as gateway b sees it. */
  async function signedInOnA(): Promise<{ onA: AppVisitor; onB: AppVisitor }> {
    const onA = new AppVisitor(pair.a.app);
    expect((await onA.signIn(key)).statusCode).toBe(303);
    return { onA, onB: new AppVisitor(pair.b.app, onA) };
  }

  it("signed in on one, recognised on the other; signed out on the other, refused on the first", async () => {
    const { onA, onB } = await signedInOnA();
    const id = onA.cookies.get("app_session")!;
    expect((await onA.get("/app")).body).toContain(SIGNED_IN);
    expect((await onB.get("/app")).body).toContain(SIGNED_IN);
    expect((await onB.post("/app/session/end", {})).statusCode).toBe(303);
    expect(onA.cookies.has("app_session")).toBe(false);
    // A copy of the old cookie (another tab, a stolen copy) is refused on the first gateway too.
    const replay = new AppVisitor(pair.a.app);
    replay.cookies.set("app_session", id);
    expect((await replay.get("/app")).body).toContain(SIGN_IN_PAGE);
  });

  it("counts idleness across both: used on either, it stays; 12 hours unused, it is gone on both", async () => {
    const start = clock.now();
    const { onA, onB } = await signedInOnA();
    clock.advance(11 * HOUR);
    expect((await onB.get("/app")).body).toContain(SIGNED_IN);
    clock.advance(11 * HOUR);
    expect((await onA.get("/app")).body, "used on b 11 hours ago").toContain(SIGNED_IN);
    clock.advance(12 * HOUR + 60_000);
    expect((await onB.get("/app")).body).toContain(SIGN_IN_PAGE);
    expect((await onA.get("/app")).body).toContain(SIGN_IN_PAGE);
    clock.set(start);
  });
});

describe("the embedded gateway", () => {
  it("opens the sites database at the first sign-in, not for a visitor without a session", async () => {
    const t = await startEmbedded({});
    try {
      const database = path.join(t.env.STATE_DIR!, SITES_DB_FILE);
      const v = new AppVisitor(t.app);
      expect((await v.get("/app")).body).toContain(SIGN_IN_PAGE);
      expect(existsSync(database), "no sites database before a sign-in").toBe(false);
      const key = (await t.clients.entitlement.issueKey({ kind: KeyKind.LIVE, plan: Plan.SCALE, label: "lazy" })).secret;
      expect((await v.signIn(key)).statusCode).toBe(303);
      expect(existsSync(database)).toBe(true);
    } finally {
      await t.close();
    }
  });
});

describe.each([
  { name: "a remote sites service that does not answer", env: async () => ({ SITES_URL: `http://127.0.0.1:${await freePort()}`, GATEWAY_TOKEN: TEST_TOKENS.gateway }) },
  { name: "an in-process sites service whose database does not answer", env: async () => ({ DATABASE_URL: "postgres://postgres@127.0.0.1:1/permits" }) },
])("the app with $name", ({ env }) => {
  let t: Embedded;
  let key: string;
  beforeAll(async () => {
    t = await startEmbedded(await env());
    key = (await t.clients.entitlement.issueKey({ kind: KeyKind.LIVE, plan: Plan.PRO, label: "down" })).secret;
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  const unavailable = (res: { statusCode: number; headers: Record<string, unknown>; body: string }) => {
    expect(res.statusCode).toBe(503);
    // When to try again, as the JSON API's 503s say it (a second, unless the service says otherwise).
    expect(res.headers["retry-after"]).toMatch(/^[1-9]\d*$/);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(res.body).toContain("<h1>Try again shortly</h1>");
    expect(res.body).toContain("A part of the service is not answering right now.");
    expect(res.body).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|unavailable|ConnectError|\bat \S+\.js/i);
  };

  it("still shows the sign-in page and the stylesheet, which need no session looked up", async () => {
    const v = new AppVisitor(t.app);
    const res = await v.get("/app");
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(SIGN_IN_PAGE);
    // A cookie no gateway hands out (the ids are 43 base64url characters) is no session: no lookup.
    v.cookies.set("app_session", "<script>");
    expect((await v.get("/app")).body).toContain(SIGN_IN_PAGE);
    v.cookies.set("app_session", "a-session-id-from-before-the-outage-0123456");
    expect((await v.get("/app/style.css")).statusCode).toBe(200);
  });

  it("answers a sign-in, and a page asked for with a session cookie, with its own page in plain words", async () => {
    const v = new AppVisitor(t.app);
    const signIn = await v.signIn(key);
    unavailable(signIn);
    expect(v.cookies.has("app_session"), "no cookie for a session that was not stored").toBe(false);
    v.cookies.set("app_session", "a-session-id-from-before-the-outage-0123456"); // as long as the ids the gateway hands out
    unavailable(await v.get("/app"));
    unavailable(await v.get("/app/sites/new"));
  });
});
