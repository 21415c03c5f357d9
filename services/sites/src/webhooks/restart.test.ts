// The sites service as a real process (the built main.js), on both databases: the receiver
// answers 500 three times, then 200; the process is killed (SIGKILL) between two attempts and
// started again. The event is still delivered, once, under the same webhook-id, and every attempt
// verifies with the library's verifier. Retries are short here (WEBHOOK_RETRY_BASE_MS).
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createClient, createRouterTransport } from "@connectrpc/connect";
import { systemClock } from "@permits/runtime";
import { SitesService } from "@permits/proto/sites/v1/sites";
import { Webhook } from "standardwebhooks";
import { recordEvent } from "../events/outbox.js";
import { createSitesService } from "../service.js";
import { ACCOUNT, ACTOR, eachDatabase, siteDetails } from "../testing.js";
import { type Receiver, startReceiver, webhookHeaders } from "./fake-receiver.js";
import { parseKey, stateDirKey } from "./secrets.js";
import { WEBHOOK_DEFAULTS } from "./settings.js";

const MAIN = path.resolve(import.meta.dirname, "../../dist/main.js");

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function until(what: string, check: () => Promise<boolean> | boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
});

eachDatabase((h) => {
  it("killed between two attempts and restarted, the service still delivers the event, once more, under the same webhook-id", async () => {
    if (!existsSync(MAIN)) throw new Error(`the built service is missing at ${MAIN}: run npm run build`);
    const { database, kind } = h();
    // SQLite: the process makes its key in STATE_DIR (this test makes it first, to seal the secret
    // with it); PostgreSQL: the key is configured.
    const stateDir = path.dirname(kind.url());
    const configured = randomBytes(32).toString("base64");
    const key = database.kind === "sqlite" ? stateDirKey(stateDir) : parseKey(configured, "key");
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOST: "127.0.0.1",
      PORT: String(await freePort()),
      METRICS_PORT: "0",
      LOG_LEVEL: "warn",
      WEBHOOK_ALLOW_PRIVATE: "1",
      WEBHOOK_RETRY_BASE_MS: "400",
      WEBHOOK_POLL_MS: "50",
      ...(database.kind === "sqlite" ? { STATE_DIR: stateDir } : { DATABASE_URL: kind.url(), WEBHOOK_SECRET_KEY: configured }),
    };
    const service = createClient(SitesService, createRouterTransport(({ service: serve }) => serve(SitesService, createSitesService({ db: database.db, kind: database.kind, clock: systemClock, webhooks: { ...WEBHOOK_DEFAULTS, key, policy: { allowPrivate: true } } }))));
    const { endpoint, signingSecret } = await service.createWebhookEndpoint({ accountId: ACCOUNT, actor: ACTOR, url: `${receiver.origin}/process-${database.kind}`, events: ["inspection.overdue"] });
    const { site } = await service.createSite({ accountId: ACCOUNT, actor: ACTOR, details: siteDetails() });
    receiver.answer = (_r, n) => (n <= 3 ? { status: 500, body: "not now" } : { status: 200, body: "got it" });
    receiver.received.length = 0;
    const eventId = (await database.db.transaction().execute((trx) => recordEvent(trx, { accountId: ACCOUNT, siteId: site!.id, type: "inspection.overdue", dedupKey: `inspection.overdue:${site!.id}:restart`, data: { dueOn: "2026-11-21" }, at: new Date().toISOString() })))!;
    const attempts = async () => (await database.db.selectFrom("webhook_attempts").select("attempt").where("endpoint_id", "=", endpoint!.id).execute()).length;

    let child: ChildProcess | undefined;
    let stderr = "";
    const start = () => {
      child = spawn(process.execPath, ["--no-warnings", MAIN], { env, stdio: ["ignore", "ignore", "pipe"] });
      child.stderr!.on("data", (d) => (stderr += d));
      return child;
    };
    try {
      const first = start();
      await until("two attempts are recorded", async () => (await attempts()) >= 2);
      const killed = new Promise((resolve) => first.on("exit", (_code, signal) => resolve(signal)));
      first.kill("SIGKILL");
      expect(await killed).toBe("SIGKILL");
      expect(receiver.received).toHaveLength(2);

      start();
      await until("the event is delivered", async () => (await database.db.selectFrom("webhook_deliveries").select("state").where("event_id", "=", eventId).executeTakeFirstOrThrow()).state === "delivered");
      await new Promise((r) => setTimeout(r, 300)); // a few polls more: nothing else goes out
      expect(receiver.received.map((r) => r.headers["webhook-id"])).toEqual([eventId, eventId, eventId, eventId]);
      for (const r of receiver.received) expect(new Webhook(signingSecret).verify(r.body, webhookHeaders(r))).toMatchObject({ type: "inspection.overdue", data: { site: { id: site!.id } } });
      expect(await attempts()).toBe(4);
    } catch (e) {
      throw new Error(`${(e as Error).message}\nservice stderr:\n${stderr}`);
    } finally {
      child?.kill("SIGKILL");
    }
  }, 30_000);
});
