// Slow and abusive clients: 300 slowloris connections do not slow a healthy client, and the
// server closes them at its head timeout; one address cannot hold more connections than its cap.
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startGatewayProcess, type GatewayProcess } from "./support/processes.js";

let gateway: GatewayProcess | undefined;
afterEach(() => {
  gateway?.stop();
  gateway = undefined;
});

async function start(env: Record<string, string>): Promise<number> {
  gateway = await startGatewayProcess(env);
  return gateway.port;
}

let lastAnswer = () => "";

/** A connection that sends its request head one byte at a time and never finishes it. */
function slowloris(port: number): { closedByServer: Promise<number>; stop(): void } {
  const socket = net.connect(port, "127.0.0.1");
  const opened = Date.now();
  socket.on("error", () => {});
  socket.write("GET /api/v1 HTTP/1.1\r\nHost: x\r\nX-Slow: ");
  const drip = setInterval(() => socket.write("a"), 300);
  let answer = "";
  socket.on("data", (d) => (answer += d.toString()));
  const closedByServer = new Promise<number>((resolve) => socket.on("close", () => resolve(Date.now() - opened)));
  lastAnswer = () => answer;
  return { closedByServer, stop: () => (clearInterval(drip), socket.destroy()) };
}

describe("slow clients", () => {
  it("300 slowloris connections: a healthy client keeps its p99 under 50 ms, and the server closes them at the head timeout", async () => {
    const port = await start({ HEADERS_TIMEOUT_MS: "2000", MAX_CONNECTIONS_PER_ADDRESS: "400" });
    const slow = Array.from({ length: 300 }, () => slowloris(port));
    try {
      await new Promise((r) => setTimeout(r, 300));
      const times: number[] = [];
      for (let i = 0; i < 200; i++) {
        const t0 = performance.now();
        const res = await fetch(`http://127.0.0.1:${port}/api/v1`);
        await res.arrayBuffer();
        times.push(performance.now() - t0);
        expect(res.status).toBe(200);
      }
      times.sort((a, b) => a - b);
      expect(times[Math.floor(times.length * 0.99)]).toBeLessThan(50);
      // Closed by the server (the client never stops dripping) between the timeout and a check later.
      let closedCount = 0;
      for (const s of slow) void s.closedByServer.then(() => closedCount++);
      const lifetimes = await Promise.race([Promise.all(slow.map((s) => s.closedByServer)), new Promise<null>((r) => setTimeout(() => r(null), 6000))]);
      expect(closedCount).toBe(300);
      expect(lifetimes).not.toBeNull();
      for (const ms of lifetimes!) expect(ms).toBeGreaterThanOrEqual(1900);
      // Told why, in the contract.
      expect(lastAnswer()).toMatch(/^HTTP\/1\.1 408 /);
      expect(lastAnswer()).toMatch(/"code":"invalid_request"/);
    } finally {
      for (const s of slow) s.stop();
    }
  }, 30_000);

  it("one address holds at most MAX_CONNECTIONS_PER_ADDRESS connections; the others are closed at once", async () => {
    const port = await start({ MAX_CONNECTIONS_PER_ADDRESS: "20" });
    const sockets = Array.from({ length: 25 }, () => {
      const s = net.connect(port, "127.0.0.1");
      s.on("error", () => {});
      s.resume();
      return { s, closed: new Promise<boolean>((r) => { s.on("close", () => r(true)); setTimeout(() => r(false), 1500); }) };
    });
    const closed = await Promise.all(sockets.map((x) => x.closed));
    for (const x of sockets) x.s.destroy();
    // The cap counts every connection of the address: the 25 here and the readiness probe's
    // keep-alive connection, if it is still open.
    const open = closed.filter((c) => !c).length;
    expect(open).toBeGreaterThanOrEqual(19);
    expect(open).toBeLessThanOrEqual(20);
    // Once they are gone, the address may connect again.
    await new Promise((r) => setTimeout(r, 200));
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  }, 30_000);
});
