// RPC spans on every path a call can take: the client span's context travels in the call's own
// `traceparent`, and the service's span is its child, also for each call of a coalesced exchange.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace";
import { Code, ConnectError, createClient, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { RateLimitService, type GetUsageRequest } from "@permits/proto/ratelimit/v1/ratelimit";
import { createDirectTransport, directRoute } from "../client/direct-transport.js";
import { createH2Transport } from "../client/h2-transport.js";
import { countingLeanServer, type CountingServer } from "../testing.js";
import { createLogger } from "@permits/runtime";
import { withInterceptors } from "../chain/pipeline.js";
import { serve, type RunningService } from "../server/serve.js";
import { startTracing, tracingRequested, type Tracing } from "./tracing.js";

const logger = createLogger("t", { level: "silent" });
const exporter = new InMemorySpanExporter();
const processor = new SimpleSpanProcessor({ exporter });
let tracing: Tracing;

const impl = {
  async getUsage(req: GetUsageRequest) {
    await new Promise((r) => setTimeout(r, 5)); // so the calls of one exchange overlap
    if (req.bucket === "bad") throw new ConnectError("bad bucket", Code.InvalidArgument);
    return { policy: req.policy };
  },
};

let served: RunningService;
let lean: CountingServer;

beforeAll(async () => {
  tracing = (await startTracing("t", {}, { spanProcessors: [processor] }))!;
  served = await serve({ name: "t", services: [{ service: RateLimitService, impl }], host: "127.0.0.1", port: 0, logger, interceptors: [tracing.server], shutdownGraceMs: 200 });
  // The lean path alone, counting HTTP/2 streams to tell a coalesced exchange from lone calls.
  lean = await countingLeanServer([{ service: RateLimitService, impl }], [tracing.server], logger);
});
afterAll(async () => {
  await served.close();
  await lean.close();
  await tracing.shutdown();
});
beforeEach(() => exporter.reset());

/** Runs `call` inside a span of its own, as a request handler would. */
function within<T>(name: string, call: () => Promise<T>): Promise<T> {
  return tracing.tracer.startActiveSpan(name, (span) => call().finally(() => span.end()));
}

/** The spans of one call made under `parent`: its client span and the server span under that. */
async function callUnder(parent: string): Promise<{ caller: ReadableSpan; client: ReadableSpan; server: ReadableSpan }> {
  await processor.forceFlush(); // spans are exported once the resource's detected attributes settle
  const spans = exporter.getFinishedSpans();
  const caller = spans.find((s) => s.name === parent)!;
  const childOf = (p: ReadableSpan) => spans.filter((s) => s.parentSpanContext?.spanId === p.spanContext().spanId);
  const [client, ...moreClients] = childOf(caller);
  expect(moreClients).toEqual([]);
  const [server, ...moreServers] = childOf(client);
  expect(moreServers).toEqual([]);
  return { caller, client, server };
}

const paths: [string, (url: string) => Transport][] = [
  ["adapter: Connect JSON over HTTP/1.1", (url) => createConnectTransport({ baseUrl: url, httpVersion: "1.1", useBinaryFormat: false })],
  ["adapter: gRPC over HTTP/2", (url) => createGrpcTransport({ baseUrl: url })],
  ["adapter: gRPC-Web over HTTP/1.1", (url) => createGrpcWebTransport({ baseUrl: url, httpVersion: "1.1" })],
  ["lean unary (binary Connect over HTTP/2)", (url) => createH2Transport({ baseUrl: url })],
  ["direct transport", () => createDirectTransport([directRoute(RateLimitService, impl)], { interceptors: [tracing.server] })],
];

describe.each(paths)("%s", (_name, transportFor) => {
  it("makes a client span and, under it in the same trace, the service's server span", async () => {
    const client = createClient(RateLimitService, withInterceptors(transportFor(`http://127.0.0.1:${served.port}`), [tracing.client]));
    expect((await within("handler", () => client.getUsage({ policy: "p1" }))).policy).toBe("p1");
    const { caller, client: c, server: s } = await callUnder("handler");
    expect([c.name, c.kind, s.name, s.kind]).toEqual([
      "permits.ratelimit.v1.RateLimitService/GetUsage",
      SpanKind.CLIENT,
      "permits.ratelimit.v1.RateLimitService/GetUsage",
      SpanKind.SERVER,
    ]);
    expect(new Set([caller, c, s].map((x) => x.spanContext().traceId)).size).toBe(1);
    expect(s.attributes).toEqual({ "rpc.system": "connect_rpc", "rpc.service": "permits.ratelimit.v1.RateLimitService", "rpc.method": "GetUsage" });
    expect([c.status.code, s.status.code]).toEqual([SpanStatusCode.UNSET, SpanStatusCode.UNSET]);
    expect(s.resource.attributes["service.name"]).toBe("t");
  });

  it("marks both spans with the call's Connect code when it fails", async () => {
    const client = createClient(RateLimitService, withInterceptors(transportFor(`http://127.0.0.1:${served.port}`), [tracing.client]));
    expect(await within("failing", () => client.getUsage({ bucket: "bad" })).catch((e) => ConnectError.from(e).code)).toBe(Code.InvalidArgument);
    const { client: c, server: s } = await callUnder("failing");
    for (const span of [c, s]) {
      expect(span.status.code).toBe(SpanStatusCode.ERROR);
      expect(span.attributes["rpc.connect_rpc.error_code"]).toBe("invalid_argument");
    }
  });
});

describe("a coalesced exchange", () => {
  it("gives each of its calls its own client span and, under it, its own server span", async () => {
    const client = createClient(RateLimitService, withInterceptors(createH2Transport({ baseUrl: lean.url }), [tracing.client]));
    const before = lean.streams();
    const [a, b] = await Promise.all([within("request A", () => client.getUsage({ policy: "a" })), within("request B", () => client.getUsage({ policy: "b" }))]);
    expect([a.policy, b.policy, lean.streams() - before]).toEqual(["a", "b", 1]);
    const spansA = await callUnder("request A");
    const spansB = await callUnder("request B");
    expect(spansA.server.spanContext().traceId).toBe(spansA.caller.spanContext().traceId);
    expect(spansB.server.spanContext().traceId).toBe(spansB.caller.spanContext().traceId);
    expect(spansA.caller.spanContext().traceId).not.toBe(spansB.caller.spanContext().traceId);
  });
});

describe("tracingRequested", () => {
  it.each([
    [{}, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://127.0.0.1:4318/v1/traces" }, true],
    [{ OTEL_TRACES_EXPORTER: "console" }, true],
    [{ OTEL_TRACES_EXPORTER: "none" }, false],
    [{ OTEL_TRACES_EXPORTER: "none", OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318", OTEL_SDK_DISABLED: "true" }, false],
  ])("%j -> %s", async (env, expected) => {
    expect(tracingRequested(env)).toBe(expected);
    if (!expected) expect(await startTracing("t", env)).toBeUndefined();
  });

  it("refuses, naming the variable, a value the SDK would silently ignore", () => {
    expect(() => tracingRequested({ OTEL_TRACES_EXPORTER: "otpl" })).toThrow('invalid configuration: OTEL_TRACES_EXPORTER: unknown exporter "otpl" (one of otlp, console, zipkin, none)');
    expect(() => tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318", OTEL_EXPORTER_OTLP_PROTOCOL: "http/xml" })).toThrow(
      'invalid configuration: OTEL_EXPORTER_OTLP_PROTOCOL: unknown protocol "http/xml" (one of http/protobuf, http/json, grpc)',
    );
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json" })).toBe(true);
  });
});
