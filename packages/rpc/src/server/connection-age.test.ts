// MAX_CONNECTION_AGE_MS: a session is retired once it is that old, so a caller behind a
// connection-balancing load balancer (a Kubernetes Service) reaches a replica added after it
// connected, and no call is lost while it moves.
import net from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createClient } from "@connectrpc/connect";
import { RateLimitService } from "@permits/proto/ratelimit/v1/ratelimit";
import { createH2Transport } from "../client/h2-transport.js";
import { createLogger } from "@permits/runtime";
import { serve, type RunningService } from "./serve.js";

const logger = createLogger("t", { level: "silent" });
const AGE_MS = 400;

/** A replica that answers with its own name in `policy`. */
async function replica(name: string, maxConnectionAgeMs = AGE_MS): Promise<RunningService> {
  const impl = { getUsage: async () => ({ policy: name }) };
  return serve({ name, services: [{ service: RateLimitService, impl }], host: "127.0.0.1", port: 0, logger, shutdownGraceMs: 200, limits: { maxConnectionAgeMs } });
}

/** Balances connections, not calls, over the replicas in `pool`, as kube-proxy does. */
async function connectionBalancer(pool: number[]) {
  let next = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(pool[next++ % pool.length], "127.0.0.1");
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("error", () => {});
      s.once("close", () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
    client.once("close", () => upstream.destroy());
    upstream.once("close", () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

let a: RunningService;
let b: RunningService;
let balancer: Awaited<ReturnType<typeof connectionBalancer>>;
const pool: number[] = [];
beforeAll(async () => {
  a = await replica("a");
  b = await replica("b");
  pool.push(a.port);
  balancer = await connectionBalancer(pool);
});
afterAll(async () => {
  await balancer.close();
  await a.close();
  await b.close();
});

it("moves a caller's calls to a replica added after it connected, losing none on the way", async () => {
  const client = createClient(RateLimitService, createH2Transport({ baseUrl: balancer.url }));
  const answeredBy = async () => (await client.getUsage({})).policy;
  expect(await answeredBy()).toBe("a");
  pool.push(b.port); // the new replica: only connections opened from now on can reach it

  // Calls in flight the whole time, 10 at a time, for several connection ages.
  const seen: string[] = [];
  const until = Date.now() + 4 * AGE_MS;
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (Date.now() < until) {
        seen.push(await answeredBy());
        await new Promise((r) => setTimeout(r, 5));
      }
    }),
  );
  // Every call answered (a refused one would have thrown), and both replicas answered some.
  expect(seen.length).toBeGreaterThan(100);
  expect(new Set(seen)).toEqual(new Set(["a", "b"]));
});

it("keeps a session for good when the age is 0 (the default)", async () => {
  const [c, d] = await Promise.all([replica("c", 0), replica("d", 0)]);
  const ports = [c.port];
  const lb = await connectionBalancer(ports);
  const client = createClient(RateLimitService, createH2Transport({ baseUrl: lb.url }));
  expect((await client.getUsage({})).policy).toBe("c");
  ports.push(d.port);
  const seen = new Set<string>();
  const until = Date.now() + 3 * AGE_MS;
  while (Date.now() < until) {
    seen.add((await client.getUsage({})).policy);
    await new Promise((r) => setTimeout(r, 20));
  }
  expect(seen).toEqual(new Set(["c"]));
  await lb.close();
  await Promise.all([c.close(), d.close()]);
});
