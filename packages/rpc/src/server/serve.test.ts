import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { Code, createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { Health, HealthCheckResponse_ServingStatus as Status } from "@permits/proto/grpc/health/v1/health";
import { RateLimitService } from "@permits/proto/ratelimit/v1/ratelimit";
import { createLogger } from "@permits/runtime";
import { serve, type RunningService } from "./serve.js";

// The health service doubles as the service under test: it is hosted by every standalone service.
let running: RunningService | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function start(limits?: Parameters<typeof serve>[0]["limits"]) {
  running = await serve({ name: "t", services: [], host: "127.0.0.1", port: 0, logger: createLogger("t", { level: "silent" }), shutdownGraceMs: 500, limits });
  return `http://127.0.0.1:${running.port}`;
}

describe("standalone service host", () => {
  it("answers gRPC (HTTP/2), Connect over HTTP/2 and HTTP/1.1, and gRPC-Web on one port", async () => {
    const baseUrl = await start();
    for (const transport of [
      createGrpcTransport({ baseUrl }),
      createConnectTransport({ baseUrl, httpVersion: "2" }),
      createConnectTransport({ baseUrl, httpVersion: "1.1" }),
      createGrpcWebTransport({ baseUrl, httpVersion: "1.1" }),
    ]) {
      const res = await createClient(Health, transport).check({ service: "" });
      expect(res.status).toBe(Status.SERVING);
    }
  });

  it("answers NotFound for an unknown service name, as the health protocol says", async () => {
    const baseUrl = await start();
    const err = await createClient(Health, createGrpcTransport({ baseUrl })).check({ service: "nope.v1.Nope" }).catch((e) => e);
    expect(err.code).toBe(Code.NotFound);
  });

  it("answers plain HTTP/1.1 JSON health checks (what container health checks use)", async () => {
    const baseUrl = await start();
    const res = await fetch(`${baseUrl}/grpc.health.v1.Health/Check`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "SERVING" });
  });

  it("stops accepting on close", async () => {
    const baseUrl = await start();
    await running!.close();
    running = undefined;
    await expect(fetch(`${baseUrl}/grpc.health.v1.Health/Check`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).rejects.toThrow();
  });
});

describe("graceful shutdown", () => {
  it("lets an in-flight call finish after close begins, and refuses new connections", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    running = await serve({
      name: "slow",
      services: [{ service: RateLimitService, impl: { getUsage: async () => { await gate; return { policy: "finished" }; } } }],
      host: "127.0.0.1",
      port: 0,
      logger: createLogger("t", { level: "silent" }),
      shutdownGraceMs: 5000,
    });
    const baseUrl = `http://127.0.0.1:${running.port}`;
    const inFlight = createClient(RateLimitService, createGrpcTransport({ baseUrl })).getUsage({ policy: "p", bucket: "b" });
    await new Promise((r) => setTimeout(r, 50));
    const closing = running.close();
    running = undefined;
    await new Promise((r) => setTimeout(r, 50));
    release();
    expect((await inFlight).policy).toBe("finished");
    await closing;
    await expect(fetch(`${baseUrl}/grpc.health.v1.Health/Check`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).rejects.toThrow();
  });
});

describe("the request limit (limits.maxRequestBytes: a manifest's maxRequestBytes)", () => {
  it("reads a request up to the limit and refuses a larger one, on the lean path and through the adapter", async () => {
    running = await serve({
      name: "sized",
      services: [{ service: RateLimitService, impl: { getUsage: async (req) => ({ policy: `${req.policy.length} characters` }) } }],
      host: "127.0.0.1",
      port: 0,
      logger: createLogger("t", { level: "silent" }),
      shutdownGraceMs: 500,
      limits: { maxRequestBytes: 64 * 1024 },
    });
    const baseUrl = `http://127.0.0.1:${running.port}`;
    // Binary Connect over HTTP/2 takes the lean path; JSON Connect and gRPC go to connect-node's adapter.
    for (const transport of [createConnectTransport({ baseUrl, httpVersion: "2", useBinaryFormat: true }), createConnectTransport({ baseUrl, httpVersion: "2" }), createGrpcTransport({ baseUrl })]) {
      const client = createClient(RateLimitService, transport);
      expect((await client.getUsage({ policy: "p".repeat(60 * 1024), bucket: "b" })).policy).toBe(`${60 * 1024} characters`);
      await expect(client.getUsage({ policy: "p".repeat(70 * 1024), bucket: "b" })).rejects.toMatchObject({ code: Code.ResourceExhausted });
    }
  });
});

describe("limits for slow and abusive clients", () => {
  /** Opens a connection, runs `act` on it, and resolves with how long it stayed open (null: still open at 4 s). */
  async function lifetime(port: number, act: (s: net.Socket) => void): Promise<number | null> {
    const socket = net.connect(port, "127.0.0.1");
    socket.on("error", () => {});
    socket.resume();
    const t0 = Date.now();
    act(socket);
    const ms = await new Promise<number | null>((resolve) => {
      socket.on("close", () => resolve(Date.now() - t0));
      setTimeout(() => resolve(null), 4000);
    });
    socket.destroy();
    return ms;
  }

  it("closes a connection that sends nothing, and an HTTP/1.1 head sent byte by byte, at the head timeout", async () => {
    await start({ headersTimeoutMs: 1000 });
    const port = running!.port;
    const silent = await lifetime(port, () => {});
    let drip: NodeJS.Timeout | undefined;
    const slowHead = await lifetime(port, (s) => {
      s.write("POST /grpc.health.v1.Health/Check HTTP/1.1\r\nHost: x\r\nX-Slow: ");
      drip = setInterval(() => s.write("a"), 200);
    });
    clearInterval(drip);
    for (const ms of [silent, slowHead]) {
      expect(ms).not.toBeNull();
      expect(ms!).toBeGreaterThanOrEqual(950);
      expect(ms!).toBeLessThan(3000);
    }
  }, 15_000);

  it("refuses connections past maxConnections", async () => {
    await start({ maxConnections: 2 });
    const port = running!.port;
    const open = [net.connect(port, "127.0.0.1"), net.connect(port, "127.0.0.1")];
    for (const s of open) s.on("error", () => {});
    await new Promise((r) => setTimeout(r, 100));
    const third = await lifetime(port, () => {});
    for (const s of open) s.destroy();
    expect(third).not.toBeNull();
    expect(third!).toBeLessThan(1000);
  });
});
