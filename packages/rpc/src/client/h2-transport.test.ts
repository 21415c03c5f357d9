// The lean unary path, both ends, against connect-node as the reference: whichever client talks
// to whichever server, a call gives the same message, headers, trailers, codes and details.
import http2 from "node:http2";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code, ConnectError, createClient, type HandlerContext, type Transport } from "@connectrpc/connect";
import { connectNodeAdapter, createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { RateLimitService, type GetUsageRequest } from "@permits/proto/ratelimit/v1/ratelimit";
import { LeanContext } from "./direct-transport.js";
import { badRequestOf, invalidArgument, ViolationReason } from "@permits/rules";
import { createH2Transport } from "./h2-transport.js";
import { leanUnary } from "../server/lean-unary.js";
import { createLogger } from "@permits/runtime";
import { serve, type RunningService } from "../server/serve.js";

const impl = {
  async getUsage(req: GetUsageRequest, ctx: HandlerContext) {
    ctx.responseHeader.set("x-path", ctx instanceof LeanContext ? "lean" : "adapter");
    if (req.bucket === "slow") await new Promise((r) => setTimeout(r, 400));
    if (req.bucket === "bad") throw invalidArgument("bad bucket", [{ field: "bucket", description: "unknown bucket", reason: ViolationReason.MALFORMED }]);
    if (req.bucket === "busy") throw new ConnectError("try again shortly", Code.Unavailable, { "retry-after": "2" });
    if (req.bucket === "boom") throw new Error("secret internal detail");
    ctx.responseTrailer.set("x-trailer", "t");
    return { policy: `${req.policy}:${ctx.requestHeader.get("x-request-id")}`, bindingWindow: 3 };
  },
};

let lean: RunningService;
let reference: http2.Http2Server;
let leanUrl: string;
let referenceUrl: string;
const referenceSessions = new Set<http2.Http2Session>();

beforeAll(async () => {
  lean = await serve({ name: "t", services: [{ service: RateLimitService, impl }], host: "127.0.0.1", port: 0, logger: createLogger("t", { level: "silent" }), shutdownGraceMs: 200 });
  leanUrl = `http://127.0.0.1:${lean.port}`;
  reference = http2.createServer(connectNodeAdapter({ routes: (r) => r.service(RateLimitService, impl) }));
  reference.on("session", (s) => referenceSessions.add(s));
  await new Promise<void>((r) => reference.listen(0, "127.0.0.1", r));
  referenceUrl = `http://127.0.0.1:${(reference.address() as net.AddressInfo).port}`;
});
afterAll(async () => {
  await lean.close();
  // The clients keep their sessions open: end them, or close() would wait for them.
  for (const s of referenceSessions) s.destroy();
  await new Promise((r) => reference.close(r));
});

const pairs: [string, () => Transport][] = [
  ["lean client, lean server", () => createH2Transport({ baseUrl: leanUrl })],
  ["connect-node client, lean server", () => createConnectTransport({ baseUrl: leanUrl, httpVersion: "2" })],
  ["lean client, connect-node server", () => createH2Transport({ baseUrl: referenceUrl })],
];

describe.each(pairs)("%s", (_name, transport) => {
  const client = () => createClient(RateLimitService, transport());

  it("carries the message, request and response headers, and trailers", async () => {
    let header: Headers | undefined;
    let trailer: Headers | undefined;
    const res = await client().getUsage({ policy: "p", bucket: "ok" }, { headers: { "x-request-id": "req_1" }, onHeader: (h) => (header = h), onTrailer: (t) => (trailer = t) });
    expect(res.policy).toBe("p:req_1");
    expect(res.bindingWindow).toBe(3);
    expect(header?.get("x-path")).toBeDefined();
    expect(trailer?.get("x-trailer")).toBe("t");
  });

  it("carries error codes, messages, structured details and metadata", async () => {
    const bad = await client().getUsage({ bucket: "bad" }).catch((e) => e);
    expect(bad).toBeInstanceOf(ConnectError);
    expect(bad.code).toBe(Code.InvalidArgument);
    expect(bad.rawMessage).toBe("bad bucket");
    expect(badRequestOf(bad)?.violations[0]).toMatchObject({ field: "bucket", description: "unknown bucket" });
    const busy = await client().getUsage({ bucket: "busy" }).catch((e) => e);
    expect([busy.code, busy.metadata.get("retry-after")]).toEqual([Code.Unavailable, "2"]);
  });

  it("hides an unexpected failure's text behind Internal", async () => {
    const err = await client().getUsage({ bucket: "boom" }).catch((e) => e);
    expect(err.code).toBe(Code.Internal);
    expect(err.message).not.toContain("secret");
  });

  it("ends a call at its deadline with DeadlineExceeded", async () => {
    const err = await client().getUsage({ bucket: "slow" }, { timeoutMs: 50 }).catch((e) => e);
    expect(err.code).toBe(Code.DeadlineExceeded);
  });
});

describe("coalescing", () => {
  async function countingServer() {
    const server = http2.createServer();
    const handle = leanUnary([{ service: RateLimitService, impl }], { logger: createLogger("t", { level: "silent" }), shutdownSignal: new AbortController().signal, interceptors: [] });
    let streams = 0;
    server.on("session", (session) => referenceSessions.add(session));
    server.on("stream", (stream, headers) => {
      streams++;
      if (!handle(stream, headers)) stream.respond({ ":status": 404 }, { endStream: true });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    return { url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`, streams: () => streams, server };
  }

  it("sends the calls of one turn in one exchange, each with its own answer, error or deadline", async () => {
    const s = await countingServer();
    const client = createClient(RateLimitService, createH2Transport({ baseUrl: s.url }));
    const results = await Promise.all([
      client.getUsage({ policy: "a", bucket: "ok" }, { headers: { "x-request-id": "r1" } }),
      client.getUsage({ policy: "b", bucket: "ok" }, { headers: { "x-request-id": "r2" } }),
      client.getUsage({ bucket: "bad" }).catch((e) => e),
      client.getUsage({ bucket: "busy" }).catch((e) => e),
      client.getUsage({ bucket: "boom" }).catch((e) => e),
      client.getUsage({ bucket: "slow" }, { timeoutMs: 50 }).catch((e) => e),
    ]);
    expect(s.streams()).toBe(1);
    expect(results[0].policy).toBe("a:r1");
    expect(results[1].policy).toBe("b:r2");
    expect([results[2].code, badRequestOf(results[2])?.violations[0].field]).toEqual([Code.InvalidArgument, "bucket"]);
    expect([results[3].code, results[3].metadata.get("retry-after")]).toEqual([Code.Unavailable, "2"]);
    expect([results[4].code, results[4].message.includes("secret")]).toEqual([Code.Internal, false]);
    expect(results[5].code).toBe(Code.DeadlineExceeded);
    // A lone call goes on a stream of its own.
    expect((await client.getUsage({ policy: "c" })).policy).toBe("c:null");
    expect(s.streams()).toBe(2);
    s.server.close();
  });

  it("cuts an exchange at 4 MB of messages", async () => {
    const s = await countingServer();
    const client = createClient(RateLimitService, createH2Transport({ baseUrl: s.url }));
    const big = "b".repeat(1_500_000);
    const res = await Promise.all(["p1", "p2", "p3"].map((policy) => client.getUsage({ policy, bucket: big })));
    expect(res.map((r) => r.policy)).toEqual(["p1:null", "p2:null", "p3:null"]);
    // 3 MB together, then the third alone: two streams.
    expect(s.streams()).toBe(2);
    s.server.close();
  });

  it("falls back to one stream per call where the service does not serve coalesced calls", async () => {
    const client = createClient(RateLimitService, createH2Transport({ baseUrl: referenceUrl }));
    for (let round = 0; round < 2; round++) {
      const res = await Promise.all(["x", "y", "z"].map((policy) => client.getUsage({ policy, bucket: "ok" })));
      expect(res.map((r) => r.policy)).toEqual(["x:null", "y:null", "z:null"]);
    }
  });
});

describe("the lean path", () => {
  it("answers binary Connect unary calls on HTTP/2 itself and leaves JSON and gRPC to the adapter", async () => {
    const pathOf = async (t: Transport) => {
      let path: string | null = null;
      await createClient(RateLimitService, t).getUsage({ policy: "p" }, { onHeader: (h) => (path = h.get("x-path")) });
      return path;
    };
    expect(await pathOf(createH2Transport({ baseUrl: leanUrl }))).toBe("lean");
    expect(await pathOf(createConnectTransport({ baseUrl: leanUrl, httpVersion: "2" }))).toBe("lean");
    expect(await pathOf(createConnectTransport({ baseUrl: leanUrl, httpVersion: "2", useBinaryFormat: false }))).toBe("adapter");
    expect(await pathOf(createGrpcTransport({ baseUrl: leanUrl }))).toBe("adapter");
    expect(await pathOf(createConnectTransport({ baseUrl: leanUrl, httpVersion: "1.1" }))).toBe("adapter");
  });

  it("gives Canceled when the caller aborts, and Unavailable when nothing listens", async () => {
    const ac = new AbortController();
    const pending = createClient(RateLimitService, createH2Transport({ baseUrl: leanUrl })).getUsage({ bucket: "slow" }, { signal: ac.signal });
    setTimeout(() => ac.abort(), 20);
    expect((await pending.catch((e) => e)).code).toBe(Code.Canceled);
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const err = await createClient(RateLimitService, createH2Transport({ baseUrl: `http://127.0.0.1:${port}` })).getUsage({}).catch((e) => e);
    expect(err.code).toBe(Code.Unavailable);
  });

  it("refuses a malformed request body with InvalidArgument", async () => {
    const session = http2.connect(leanUrl);
    const stream = session.request({ ":method": "POST", ":path": "/permits.ratelimit.v1.RateLimitService/GetUsage", "content-type": "application/proto", "connect-protocol-version": "1" });
    const chunks: Buffer[] = [];
    let status = 0;
    stream.on("response", (h) => (status = Number(h[":status"])));
    stream.on("data", (c) => chunks.push(c));
    await new Promise((r) => {
      stream.on("end", r);
      stream.end(Buffer.from([0xff, 0xff, 0xff]));
    });
    session.close();
    expect(status).toBe(400);
    expect(JSON.parse(Buffer.concat(chunks).toString()).code).toBe("invalid_argument");
  });
});

describe("a service that resets its connections", () => {
  it("is Unavailable to every call, never an internal or aborted error", async () => {
    // Accepts, then resets: the session dies of ECONNRESET, which connect-node codes Aborted and
    // hands on to calls racing its reconnection.
    const resetting = net.createServer((socket) => socket.resetAndDestroy());
    await new Promise<void>((r) => resetting.listen(0, "127.0.0.1", r));
    const client = createClient(RateLimitService, createH2Transport({ baseUrl: `http://127.0.0.1:${(resetting.address() as net.AddressInfo).port}` }));
    const codes = new Set<string>();
    for (let round = 0; round < 5; round++) {
      const outcomes = await Promise.all(Array.from({ length: 10 }, () => client.getUsage({}).then(() => "OK", (e) => Code[ConnectError.from(e).code])));
      outcomes.forEach((c) => codes.add(c));
    }
    expect([...codes]).toEqual(["Unavailable"]);
    await new Promise((r) => resetting.close(r));
  });
});

describe("a service that ends a call's stream without answering", () => {
  it("is Unavailable to the call, never an unknown error (HTTP 0), and is not sent again", async () => {
    // As when the service is killed mid-call: the stream ends with no response headers.
    const server = http2.createServer();
    const sessions = new Set<http2.ServerHttp2Session>();
    server.on("session", (s) => sessions.add(s));
    let streams = 0;
    server.on("stream", (stream) => {
      streams++;
      stream.close(http2.constants.NGHTTP2_NO_ERROR);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const client = createClient(RateLimitService, createH2Transport({ baseUrl: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}` }));
    const codes = await Promise.all(Array.from({ length: 3 }, () => client.getUsage({}).then(() => "OK", (e) => Code[ConnectError.from(e).code])));
    expect(codes).toEqual(["Unavailable", "Unavailable", "Unavailable"]);
    // One coalesced exchange, not sent again: only a refused stream is (connection-age.test.ts).
    expect(streams).toBe(1);
    for (const session of sessions) session.destroy();
    await new Promise((r) => server.close(r));
  });
});
