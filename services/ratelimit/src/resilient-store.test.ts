// Redis failure: the per-instance fallback answers within the timeout and says so (degraded),
// logs once per outage, and shared counting resumes when Redis returns.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import net from "node:net";
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, inject, it, vi } from "vitest";
import { createClient, createRouterTransport } from "@connectrpc/connect";
import { ManualClock } from "@permits/runtime";
import { RateLimitService } from "@permits/proto/ratelimit/v1/ratelimit";
import { MemoryStore } from "./memory-store.js";
import { loadPolicies } from "./policies.js";
import { RedisStore } from "./redis-store.js";
import { ResilientStore } from "./resilient-store.js";
import { createRateLimitService, createRateLimitStore } from "./service.js";
import type { Logger, RateLimitStore } from "./store.js";
import { planWindows } from "./windows.js";
import { Registry } from "prom-client";
import { storeMetrics } from "./store-metrics.js";

const policies = loadPolicies();
const anonymous = policies.get("stormwater.anonymous")!;
const T0 = Date.parse("2026-03-14T10:00:00.000Z");
const opened: RateLimitStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

function spyLogger(): Logger & { warn: ReturnType<typeof vi.fn>; info: ReturnType<typeof vi.fn> } {
  return { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
}

async function decide(store: RateLimitStore, bucket: string, now = T0) {
  return store.decide(`stormwater.anonymous:${bucket}`, planWindows(anonymous, now), 1, now);
}

describe("createRateLimitStore", () => {
  it("is the memory store without a Redis URL", async () => {
    expect(await createRateLimitStore({})).toBeInstanceOf(MemoryStore);
    expect(await createRateLimitStore({ redisUrl: "" })).toBeInstanceOf(MemoryStore);
  });

  it("with Redis unreachable, answers from the fallback within the timeout, degraded, logging once", async () => {
    const logger = spyLogger();
    const store = await createRateLimitStore({ redisUrl: "redis://127.0.0.1:1", logger, startupWaitMs: 100 });
    opened.push(store);
    const impl = createRateLimitService({ store, policies, clock: new ManualClock(T0), logger });
    const rl = createClient(RateLimitService, createRouterTransport(({ service }) => service(RateLimitService, impl)));
    const results = [];
    for (let i = 0; i < 6; i++) {
      const started = performance.now();
      results.push(await rl.decide({ policy: "stormwater.anonymous", bucket: "ip:1" }));
      expect(performance.now() - started).toBeLessThan(150);
    }
    expect(results.map((r) => r.degraded)).toEqual([true, true, true, true, true, true]);
    // The fallback still limits.
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, true, false, false]);
    expect(logger.warn).toHaveBeenCalledTimes(1);
  });
});

describe("ResilientStore", () => {
  it("does not wait on a Redis that hangs: the fallback answers after the timeout", async () => {
    const hanging = { ready: true, decide: () => new Promise<never>(() => {}), close: async () => {} } as unknown as RedisStore;
    const logger = spyLogger();
    const store = new ResilientStore(hanging, { timeoutMs: 150, logger });
    const started = performance.now();
    const r = await decide(store, "ip:1");
    const took = performance.now() - started;
    expect(r).toMatchObject({ allowed: true, degraded: true });
    expect(took).toBeGreaterThanOrEqual(140);
    expect(took).toBeLessThan(400);
    expect(logger.warn).toHaveBeenCalledTimes(1);
  });

  it("logs the outage once and the recovery once, then decides on Redis again", async () => {
    let failing = true;
    const primary = new MemoryStore();
    const flaky = {
      get ready() {
        return true;
      },
      decide: (...a: Parameters<MemoryStore["decide"]>) => (failing ? Promise.reject(new Error("ECONNRESET")) : primary.decide(...a)),
      close: async () => {},
    } as unknown as RedisStore;
    const logger = spyLogger();
    const registry = new Registry();
    const store = new ResilientStore(flaky, { logger, observer: storeMetrics(registry) });
    const value = async (name: string) => (await registry.getSingleMetric(name)!.get()).values.find((v) => v.metricName === undefined || !v.metricName.endsWith("_bucket"))?.value;
    const count = async () => (await registry.getSingleMetric("ratelimit_redis_decision_duration_seconds")!.get()).values.find((v) => v.metricName?.endsWith("_count"))?.value;
    for (let i = 0; i < 3; i++) expect((await decide(store, "ip:1")).degraded).toBe(true);
    // The metrics say the same: fallback active, three fallback decisions, none by Redis.
    expect([await value("ratelimit_fallback_active"), await value("ratelimit_fallback_decisions_total"), await count()]).toEqual([1, 3, 0]);
    failing = false;
    expect((await decide(store, "ip:1")).degraded).toBe(false);
    expect((await decide(store, "ip:1")).degraded).toBe(false);
    expect([await value("ratelimit_fallback_active"), await value("ratelimit_fallback_decisions_total"), await count()]).toEqual([0, 3, 2]);
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(logger.info).toHaveBeenCalledTimes(1);
  });
});

describe.skipIf(!inject("prerequisites").redisServer)("a private redis-server: stopped, restarted, stalled", () => {
  let server: ChildProcess | undefined;
  afterEach(() => {
    server?.kill("SIGKILL");
    server = undefined;
  });

  it("shares counts across replicas, falls back while down, and shares again once back", async () => {
    const port = await freePort();
    server = await startRedis(port);
    const url = `redis://127.0.0.1:${port}`;
    const prefix = `test:rl:${randomUUID()}:`;
    const logger = spyLogger();
    // Two service replicas over one Redis.
    const replicas = [0, 1].map(() => new ResilientStore(new RedisStore({ url, keyPrefix: prefix }), { logger }));
    opened.push(...replicas);
    await Promise.all(replicas.map((r) => r.primary.connect()));

    const before = await Promise.all(Array.from({ length: 10 }, (_, i) => decide(replicas[i % 2], "ip:a")));
    expect(before.filter((r) => r.allowed)).toHaveLength(4);
    expect(before.every((r) => !r.degraded)).toBe(true);

    server.kill("SIGKILL");
    await once(server, "exit");
    const during = [];
    for (let i = 0; i < 4; i++) {
      const started = performance.now();
      during.push(await decide(replicas[i % 2], "ip:b"));
      expect(performance.now() - started).toBeLessThan(200);
    }
    expect(during.every((r) => r.degraded && r.allowed)).toBe(true);
    expect(logger.warn).toHaveBeenCalledTimes(2); // once per replica

    server = await startRedis(port);
    await waitFor(() => replicas.every((r) => r.primary.ready), 10_000);
    const after = await Promise.all(Array.from({ length: 10 }, (_, i) => decide(replicas[i % 2], "ip:c")));
    expect(after.every((r) => !r.degraded)).toBe(true);
    expect(after.filter((r) => r.allowed)).toHaveLength(4);
    expect(logger.info).toHaveBeenCalledTimes(2);
  });

  it("answers within the timeout while Redis is stalled, and counts correctly once it answers again", async () => {
    const port = await freePort();
    server = await startRedis(port);
    const url = `redis://127.0.0.1:${port}`;
    const logger = spyLogger();
    const store = new ResilientStore(new RedisStore({ url, keyPrefix: `test:rl:${randomUUID()}:` }), { logger });
    opened.push(store);
    await store.primary.connect();
    expect((await decide(store, "ip:a")).windows[0].used).toBe(1);

    // Another connection blocks the server for 600 ms; the store's socket stays up.
    const blocker = new RedisStore({ url });
    await blocker.connect();
    const sleeping = blocker.client.sendCommand(["DEBUG", "SLEEP", "0.6"]).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 20));
    const started = performance.now();
    const stalled = await decide(store, "ip:a");
    expect(performance.now() - started).toBeLessThan(300);
    expect(stalled.degraded).toBe(true);
    await sleeping;
    await blocker.close();

    // The late reply of the timed-out script must not be mistaken for a later command's.
    // (The timed-out script did run on Redis, so Redis holds 2; the strict side of the race.)
    const back = await decide(store, "ip:a");
    expect(back).toMatchObject({ degraded: false, allowed: true });
    expect(back.windows[0].used).toBe(3);
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(logger.info).toHaveBeenCalledTimes(1);
  });
});

async function hasRedisServer(): Promise<boolean> {
  const child = spawn("redis-server", ["--version"], { stdio: "ignore" });
  try {
    const [code] = (await once(child, "exit")) as [number];
    return code === 0;
  } catch {
    return false;
  }
}

async function freePort(): Promise<number> {
  const srv = net.createServer();
  srv.listen(0, "127.0.0.1");
  await once(srv, "listening");
  const port = (srv.address() as net.AddressInfo).port;
  srv.close();
  await once(srv, "close");
  return port;
}

async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--enable-debug-command", "local"], { stdio: ["ignore", "pipe", "ignore"] });
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  await waitFor(() => out.includes("Ready to accept connections"), 5000);
  return child;
}

async function waitFor(cond: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}
