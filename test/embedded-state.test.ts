// The embedded deployment keeps what it owes its users in LMDB under STATE_DIR: keys, local
// subscriptions, monthly counters and idempotency records survive a restart, the key CLI and a
// running server write at once without losing anything, and kill -9 leaves a readable store.
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { KeyKind, Plan } from "@permits/proto/entitlement/v1/entitlement";
import { generateKeyId, generateKeySecret, LEGACY_STATE_FILE, LmdbStore as KeyStore, sha256Hex } from "@permits/entitlement";
import { LmdbStore as CounterStore, planWindows, type Policy } from "@permits/ratelimit";
import { startEmbedded, type Embedded } from "./support/embedded.js";
import { editedTiersFile } from "./support/tiers.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const site = JSON.stringify({ state: "NM", activity: "construction", acres: 3 });
const LEGACY_KEY_SECRET = "state-legacy-secret-0123456789";

let dirs: string[] = [];
let running: Embedded[] = [];
afterEach(async () => {
  for (const gw of running) await gw.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
  dirs = [];
  running = [];
});

async function stateDir(): Promise<string> {
  const d = await mkdtemp(path.join(os.tmpdir(), "permits-lmdb-state-"));
  dirs.push(d);
  return d;
}

async function start(dir: string, env: Record<string, string> = {}): Promise<Embedded> {
  const gw = await startEmbedded({ STATE_DIR: dir, LEGACY_KEY_SECRET, ...env });
  running.push(gw);
  return gw;
}

async function stop(gw: Embedded): Promise<void> {
  running = running.filter((g) => g !== gw);
  await gw.close();
}

function determine(gw: Embedded, key: string, headers: Record<string, string> = {}) {
  return gw.app.inject({ method: "POST", url: "/api/v1/determine", payload: site, headers: { "content-type": "application/json", authorization: `Bearer ${key}`, ...headers } });
}

async function monthUsed(gw: Embedded, key: string): Promise<number> {
  const body = (await gw.app.inject({ method: "GET", url: "/api/v1/usage", headers: { authorization: `Bearer ${key}` } })).json();
  return (body.data.windows as Array<{ name: string; used: number }>).find((w) => w.name === "month")!.used;
}

/** Runs an ES module snippet in a child node process from the repository root (compiled code). */
function child(code: string, env: Record<string, string>) {
  const proc = spawn(process.execPath, ["--input-type=module", "-e", code], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  proc.stdout.on("data", (b: Buffer) => (out += b));
  proc.stderr.on("data", (b: Buffer) => (err += b));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.on("close", (code, signal) => resolve({ code, signal })));
  return { proc, done, out: () => out, err: () => err };
}

describe("embedded state in LMDB", () => {
  it("a restart mid-month keeps the quota count exactly, and idempotent replays", async () => {
    const dir = await stateDir();
    let gw = await start(dir);
    const key = (await gw.clients.entitlement.issueKey({ kind: KeyKind.LIVE, plan: Plan.PRO, label: "restart" })).secret;
    let last;
    for (let i = 0; i < 8; i++) last = await determine(gw, key);
    expect(last!.statusCode).toBe(200);
    expect(last!.headers["x-quota-used"]).toBe("8");
    const first = await determine(gw, key, { "idempotency-key": "restart-1" });
    expect(first.headers["x-quota-used"]).toBe("9");
    await stop(gw);

    gw = await start(dir);
    const replay = await determine(gw, key, { "idempotency-key": "restart-1" });
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    expect(first.json().request_id).toMatch(/\S/);
    expect(replay.json().request_id).toBe(first.json().request_id);
    expect(replay.headers["x-quota-used"]).toBe("9"); // a replay spends nothing
    const after = await determine(gw, key);
    expect(after.statusCode).toBe(200);
    expect(after.headers["x-quota-used"]).toBe("10");
  }, 60_000);

  it("imports an entitlement.json left by an earlier version on first start", async () => {
    const dir = await stateDir();
    const secret = generateKeySecret("live");
    const stored = { id: generateKeyId(), kind: "live", plan: "scale", label: "from json", hash: sha256Hex(secret), createdAt: "2026-01-05T00:00:00.000Z", revokedAt: null };
    await writeFile(path.join(dir, LEGACY_STATE_FILE), JSON.stringify({ keys: [stored], subscriptions: {} }));
    const gw = await start(dir);
    const res = await determine(gw, secret);
    expect(res.statusCode).toBe(200);
    expect(res.headers["x-quota-limit"]).toBe("10000"); // the Scale plan it was issued with
  }, 60_000);

  it("the CLI issues 100 keys while the server issues 20 and records 1,000 calls: nothing is lost", async () => {
    const dir = await stateDir();
    // Lift the Scale minute throttle so 1,000 calls fit in one test; the month counts them all.
    const TIERS_FILE = editedTiersFile((ps) => ps.map((p) => (p.id === "stormwater.scale" ? { ...p, windows: [{ name: "minute", limit: 100_000 }, { name: "month", limit: 10_000, quota: true }] } : p)));
    let gw = await start(dir, { TIERS_FILE });
    const key = (await gw.clients.entitlement.issueKey({ kind: KeyKind.LIVE, plan: Plan.SCALE, label: "busy" })).secret;

    const cli = child(
      `const { runCli } = await import("@permits/entitlement");
       let ok = 0;
       for (let i = 0; i < 100; i++) {
         const code = await runCli(["create", "--kind", "test", "--label", "cli " + i], { out() {}, err: (t) => process.stderr.write(t + "\\n"), env: process.env });
         if (code === 0) ok++;
       }
       process.stdout.write(String(ok));`,
      { STATE_DIR: dir, LEGACY_KEY_SECRET, REDIS_URL: "" },
    );
    let calls = 0;
    const worker = async () => {
      while (calls < 1000) {
        calls++;
        expect((await determine(gw, key)).statusCode).toBe(200);
      }
    };
    const serverKeys = Promise.all(Array.from({ length: 20 }, (_, i) => gw.clients.entitlement.issueKey({ kind: KeyKind.TEST, label: `server ${i}` })));
    await Promise.all([...Array.from({ length: 8 }, worker), serverKeys]);
    const exit = await cli.done;
    expect(exit.code, cli.err()).toBe(0);
    expect(cli.out()).toBe("100");

    const labels = (await gw.clients.entitlement.listKeys({})).keys.map((k) => k.label);
    expect(labels).toHaveLength(121);
    for (let i = 0; i < 100; i++) expect(labels).toContain(`cli ${i}`);
    for (let i = 0; i < 20; i++) expect(labels).toContain(`server ${i}`);
    expect(await monthUsed(gw, key)).toBe(1000);

    await stop(gw);
    gw = await start(dir, { TIERS_FILE });
    expect((await gw.clients.entitlement.listKeys({})).keys).toHaveLength(121);
    expect(await monthUsed(gw, key)).toBe(1000);
  }, 120_000);

  it("kill -9 during writes leaves a readable store holding every write it confirmed", async () => {
    const dir = await stateDir();
    const writer = child(
      `const { LmdbStore: Keys } = await import("@permits/entitlement");
       const { LmdbStore: Counters } = await import("@permits/ratelimit");
       const { planWindows } = await import("@permits/ratelimit");
       const { generateKeyId, sha256Hex } = await import("@permits/entitlement");
       const dir = process.env.STATE_DIR;
       const keys = await Keys.open(dir);
       const counters = await Counters.open(dir);
       const now = Date.UTC(2026, 10, 15);
       const windows = planWindows({ windows: [{ name: "month", limit: 1e9, quota: true }] }, now);
       for (let i = 0; ; i++) {
         await keys.insertKey({ id: generateKeyId(), kind: "test", plan: null, label: "k" + i, hash: sha256Hex("k" + i), createdAt: new Date(now + i).toISOString(), revokedAt: null });
         await counters.decide("crash", windows, 1, now);
         process.stdout.write("committed " + (i + 1) + "\\n");
       }`,
      { STATE_DIR: dir },
    );
    await new Promise<void>((resolve, reject) => {
      const t = setInterval(() => {
        if ((writer.out().match(/committed/g) ?? []).length >= 50) (clearInterval(t), resolve());
        if (writer.proc.exitCode !== null) (clearInterval(t), reject(new Error(writer.err())));
      }, 10);
    });
    writer.proc.kill("SIGKILL");
    const exit = await writer.done;
    expect(exit.signal).toBe("SIGKILL");
    const confirmed = Math.max(...[...writer.out().matchAll(/committed (\d+)/g)].map((m) => Number(m[1])));

    const keys = await KeyStore.open(dir);
    const listed = await keys.listKeys();
    expect(listed.length).toBeGreaterThanOrEqual(confirmed);
    expect(listed.slice(0, confirmed).map((k) => k.label)).toEqual(Array.from({ length: confirmed }, (_, i) => `k${i}`));
    await keys.close();
    const counters = await CounterStore.open(dir);
    const now = Date.UTC(2026, 10, 15);
    const month = { windows: [{ name: "month", limit: 1e9, quota: true }] } as Policy;
    const peek = await counters.peek("crash", planWindows(month, now), now);
    expect(peek.windows[0].used).toBeGreaterThanOrEqual(confirmed);
    expect(peek.windows[0].used).toBeLessThanOrEqual(confirmed + 1); // at most the one in flight at the kill
    await counters.close();
  }, 60_000);
});
