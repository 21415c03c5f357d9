// One interceptor chain on every path a call can take: connect-node's adapter (Connect, gRPC,
// gRPC-Web; HTTP/1.1 and HTTP/2), the lean unary path, each call of a coalesced exchange, and the
// direct transport; with the caller's chain around each of them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code, ConnectError, createClient, type HandlerContext, type Interceptor, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { RateLimitService, type GetUsageRequest } from "@permits/proto/ratelimit/v1/ratelimit";
import { createDirectTransport, directRoute } from "../client/direct-transport.js";
import { createH2Transport } from "../client/h2-transport.js";
import { countingLeanServer, type CountingServer } from "../testing.js";
import { createLogger } from "@permits/runtime";
import { withInterceptors } from "./pipeline.js";
import { serve, type RunningService } from "../server/serve.js";

const logger = createLogger("t", { level: "silent" });

let handled = 0;
const impl = {
  async getUsage(req: GetUsageRequest, ctx: HandlerContext) {
    handled++;
    const ms = /^slow:(\d+)$/.exec(req.bucket)?.[1];
    if (ms) {
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(resolve, Number(ms));
        ctx.signal.addEventListener("abort", () => (clearTimeout(t), reject(ctx.signal.reason)), { once: true });
      });
    }
    if (req.bucket === "bad") throw new ConnectError("bad bucket", Code.InvalidArgument);
    ctx.responseHeader.set("x-seen-by-handler", ctx.requestHeader.get("x-client-mark") ?? "none");
    return { policy: req.policy };
  },
};

interface Record {
  end: "client" | "server";
  method: string;
  mark: string | null;
  outcome: string;
}
const records: Record[] = [];

/** Records each call it sees: its method, the request header the client chain set, its outcome. */
function recorder(end: Record["end"]): Interceptor {
  return (next) => async (req) => {
    if (end === "client") req.header.set("x-client-mark", `mark-${(req.message as GetUsageRequest).policy}`);
    const entry: Record = { end, method: req.method.name, mark: req.header.get("x-client-mark"), outcome: "pending" };
    if (req.method.parent === RateLimitService) records.push(entry);
    try {
      const res = await next(req);
      entry.outcome = "ok";
      return res;
    } catch (e) {
      entry.outcome = Code[ConnectError.from(e).code];
      throw e;
    }
  };
}

/** Refuses a call without a token, as service-to-service authentication will. */
const requireToken: Interceptor = (next) => async (req) => {
  if (req.header.get("x-token") !== "t0ken") throw new ConnectError("no credential", Code.Unauthenticated);
  return next(req);
};
const sendToken: Interceptor = (next) => async (req) => {
  req.header.set("x-token", "t0ken");
  return next(req);
};

let served: RunningService;
let guarded: RunningService;
let counting: CountingServer;

/** A lean-path server that counts HTTP/2 streams, to tell a coalesced exchange from lone calls. */
const countingServer = (interceptors: Interceptor[]) => countingLeanServer([{ service: RateLimitService, impl }], interceptors, logger);

beforeAll(async () => {
  served = await serve({ name: "t", services: [{ service: RateLimitService, impl }], host: "127.0.0.1", port: 0, logger, interceptors: [recorder("server")], shutdownGraceMs: 200 });
  guarded = await serve({ name: "g", services: [{ service: RateLimitService, impl }], host: "127.0.0.1", port: 0, logger, interceptors: [requireToken], shutdownGraceMs: 200 });
  counting = await countingServer([recorder("server")]);
});
afterAll(async () => {
  await served.close();
  await guarded.close();
  await counting.close();
});

/** Every path, as the transport a caller holds, against a server whose chain is `server`. */
type Path = [string, (url: string, server: Interceptor[]) => Transport];
const paths: Path[] = [
  ["adapter: Connect JSON over HTTP/1.1", (url) => createConnectTransport({ baseUrl: url, httpVersion: "1.1", useBinaryFormat: false })],
  ["adapter: Connect JSON over HTTP/2", (url) => createConnectTransport({ baseUrl: url, httpVersion: "2", useBinaryFormat: false })],
  ["adapter: gRPC over HTTP/2", (url) => createGrpcTransport({ baseUrl: url })],
  ["adapter: gRPC-Web over HTTP/1.1", (url) => createGrpcWebTransport({ baseUrl: url, httpVersion: "1.1" })],
  ["lean unary (binary Connect over HTTP/2)", (url) => createH2Transport({ baseUrl: url })],
  ["direct transport", (_url, server) => createDirectTransport([directRoute(RateLimitService, impl)], { interceptors: server })],
];

describe.each(paths)("%s", (_name, transportFor) => {
  const url = () => `http://127.0.0.1:${served.port}`;

  it("runs both ends' chains exactly once, with the method, the request headers and the outcome", async () => {
    records.length = 0;
    const client = createClient(RateLimitService, withInterceptors(transportFor(url(), [recorder("server")]), [recorder("client")]));
    let seen: string | null = null;
    expect((await client.getUsage({ policy: "p1" }, { onHeader: (h) => (seen = h.get("x-seen-by-handler")) })).policy).toBe("p1");
    expect(seen).toBe("mark-p1");
    expect(await client.getUsage({ policy: "p2", bucket: "bad" }).catch((e) => ConnectError.from(e).code)).toBe(Code.InvalidArgument);
    expect(records).toEqual([
      { end: "client", method: "GetUsage", mark: "mark-p1", outcome: "ok" },
      { end: "server", method: "GetUsage", mark: "mark-p1", outcome: "ok" },
      { end: "client", method: "GetUsage", mark: "mark-p2", outcome: "InvalidArgument" },
      { end: "server", method: "GetUsage", mark: "mark-p2", outcome: "InvalidArgument" },
    ]);
  });

  it("stops the call with Unauthenticated when the service's chain refuses it, before the handler", async () => {
    const guardedUrl = `http://127.0.0.1:${guarded.port}`;
    const before = handled;
    const refused = createClient(RateLimitService, transportFor(guardedUrl, [requireToken]));
    expect(await refused.getUsage({ policy: "x" }).catch((e) => ConnectError.from(e).code)).toBe(Code.Unauthenticated);
    expect(handled).toBe(before);
    const admitted = createClient(RateLimitService, withInterceptors(transportFor(guardedUrl, [requireToken]), [sendToken]));
    expect((await admitted.getUsage({ policy: "y" })).policy).toBe("y");
    expect(handled).toBe(before + 1);
  });

  it("stops the call with Unauthenticated when the caller's chain refuses it, before anything is sent", async () => {
    records.length = 0;
    const refuse: Interceptor = () => async () => {
      throw new ConnectError("no token configured", Code.Unauthenticated);
    };
    const client = createClient(RateLimitService, withInterceptors(transportFor(url(), [recorder("server")]), [refuse]));
    expect(await client.getUsage({ policy: "z" }).catch((e) => ConnectError.from(e).code)).toBe(Code.Unauthenticated);
    expect(records).toEqual([]);
  });

  it("ends a call at its deadline with DeadlineExceeded", async () => {
    const client = createClient(RateLimitService, transportFor(url(), []));
    const t0 = performance.now();
    expect(await client.getUsage({ bucket: "slow:2000" }, { timeoutMs: 60 }).catch((e) => ConnectError.from(e).code)).toBe(Code.DeadlineExceeded);
    expect(performance.now() - t0).toBeLessThan(1000);
  });
});

describe("a coalesced exchange", () => {
  it("runs both chains for each of its calls on its own", async () => {
    records.length = 0;
    const client = createClient(RateLimitService, withInterceptors(createH2Transport({ baseUrl: counting.url }), [recorder("client")]));
    const before = counting.streams();
    const [a, b] = await Promise.all([client.getUsage({ policy: "c1" }), client.getUsage({ policy: "c2", bucket: "bad" }).catch((e) => ConnectError.from(e).code)]);
    expect(counting.streams() - before).toBe(1);
    expect([a.policy, b]).toEqual(["c1", Code.InvalidArgument]);
    const sorted = [...records].sort((x, y) => `${x.mark}${x.end}`.localeCompare(`${y.mark}${y.end}`));
    expect(sorted).toEqual([
      { end: "client", method: "GetUsage", mark: "mark-c1", outcome: "ok" },
      { end: "server", method: "GetUsage", mark: "mark-c1", outcome: "ok" },
      { end: "client", method: "GetUsage", mark: "mark-c2", outcome: "InvalidArgument" },
      { end: "server", method: "GetUsage", mark: "mark-c2", outcome: "InvalidArgument" },
    ]);
  });

  it("refuses each call its chain refuses, and answers the others", async () => {
    const s = await countingServer([requireToken]);
    const plain = createH2Transport({ baseUrl: s.url });
    const withToken = withInterceptors(plain, [sendToken]);
    const before = s.streams();
    const [refused, admitted] = await Promise.all([
      createClient(RateLimitService, plain).getUsage({ policy: "r" }).catch((e) => ConnectError.from(e).code),
      createClient(RateLimitService, withToken).getUsage({ policy: "a" }),
    ]);
    expect(s.streams() - before).toBe(1);
    expect([refused, admitted.policy]).toEqual([Code.Unauthenticated, "a"]);
    await s.close();
  });

  it("answers each call when it is done: a deadline ends its call alone, and a slow call holds up no other", async () => {
    const client = createClient(RateLimitService, createH2Transport({ baseUrl: counting.url }));
    const t0 = performance.now();
    const at = <T>(p: Promise<T>) => p.then((v) => ({ v, ms: performance.now() - t0 }), (e) => ({ v: Code[ConnectError.from(e).code], ms: performance.now() - t0 }));
    const before = counting.streams();
    const [fast, timedOut, slow] = await Promise.all([
      at(client.getUsage({ policy: "fast" }).then((r) => r.policy)),
      at(client.getUsage({ policy: "late", bucket: "slow:3000" }, { timeoutMs: 100 }).then((r) => r.policy)),
      at(client.getUsage({ policy: "slow", bucket: "slow:600" }).then((r) => r.policy)),
    ]);
    expect(counting.streams() - before).toBe(1);
    expect(fast.v).toBe("fast");
    expect(fast.ms).toBeLessThan(90);
    expect(timedOut.v).toBe("DeadlineExceeded");
    expect(timedOut.ms).toBeGreaterThanOrEqual(95);
    expect(timedOut.ms).toBeLessThan(500);
    expect(slow.v).toBe("slow");
    expect(slow.ms).toBeGreaterThanOrEqual(590);
  });
});
