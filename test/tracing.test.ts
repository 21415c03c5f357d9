// One trace per public request, in both deployments: the gateway's request span (child of the
// caller's `traceparent`), a client span per Connect call under it, and under each client span
// the service's server span. The embedded gateway exports to an in-memory exporter; the
// distributed processes export OTLP/HTTP (JSON) to a receiver on loopback, configured only by
// the standard OTEL_* variables.
import http from "node:http";
import type net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace";
import { startTracing, type Tracing } from "@permits/rpc";
import { startEmbedded, type Embedded } from "./support/embedded.js";
import { generousTiersFile, startDistributed, type Distributed } from "./support/processes.js";

/** What the test reads of a span, whichever way it was exported. */
interface SpanRecord {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: "server" | "client" | "internal";
  service: string;
  attributes: Record<string, unknown>;
}

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN_ID = "00f067aa0ba902b7";
const site = JSON.stringify({ state: "TX", activity: "construction", acres: 5 });
const request = (requestId: string) => ({
  method: "POST",
  body: site,
  headers: { "content-type": "application/json", "x-request-id": requestId, traceparent: `00-${TRACE_ID}-${CALLER_SPAN_ID}-01` },
});

/** The spans of one determination, as a tree checked against what docs/operations.md promises. */
function assertDeterminationTree(spans: SpanRecord[], requestId: string, services: Record<string, string>) {
  expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([TRACE_ID]));
  const roots = spans.filter((s) => s.parentSpanId === CALLER_SPAN_ID);
  expect(roots.map((s) => [s.name, s.kind, s.service])).toEqual([["POST /api/v1/determine", "server", services.gateway]]);
  const [root] = roots;
  expect(root.attributes).toMatchObject({ "http.request.id": requestId, "http.request.method": "POST", "http.route": "/api/v1/determine", "http.response.status_code": 200 });

  // The whole tree, each span with its parent: access control's calls under the request span,
  // the engine's under the route handler's span.
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const parentOf = (s: SpanRecord) => (s.parentSpanId === CALLER_SPAN_ID ? "caller" : byId.get(s.parentSpanId ?? "")?.name ?? "missing");
  const shape = spans.map((s) => `${s.name} (${s.kind}, ${s.service}) <- ${parentOf(s)}`).sort();
  const g = services.gateway;
  expect(shape).toEqual(
    [
      `POST /api/v1/determine (server, ${g}) <- caller`,
      `handler - handler (internal, ${g}) <- POST /api/v1/determine`,
      `permits.entitlement.v1.EntitlementService/Authenticate (client, ${g}) <- POST /api/v1/determine`,
      `permits.entitlement.v1.EntitlementService/Authenticate (server, ${services.entitlement}) <- permits.entitlement.v1.EntitlementService/Authenticate`,
      `permits.ratelimit.v1.RateLimitService/Decide (client, ${g}) <- POST /api/v1/determine`,
      `permits.ratelimit.v1.RateLimitService/Decide (server, ${services.ratelimit}) <- permits.ratelimit.v1.RateLimitService/Decide`,
      `permits.stormwater.v1.StormwaterService/Determine (client, ${g}) <- handler - handler`,
      `permits.stormwater.v1.StormwaterService/Determine (server, ${services.stormwater}) <- permits.stormwater.v1.StormwaterService/Determine`,
    ].sort(),
  );
  const clients = spans.filter((s) => s.kind === "client");
  // Each client span has exactly one child: the server span of the same call, in its service.
  for (const client of clients) {
    const children = spans.filter((s) => s.parentSpanId === client.spanId);
    expect(children.length).toBe(1);
    expect(children[0].attributes).toMatchObject({ "rpc.system": "connect_rpc", "rpc.method": client.name.split("/")[1] });
  }
}

describe("embedded (in-memory exporter)", () => {
  const exporter = new InMemorySpanExporter();
  const processor = new SimpleSpanProcessor({ exporter });
  let tracing: Tracing;
  let e: Embedded;
  beforeAll(async () => {
    tracing = (await startTracing("permits-embedded", {}, { spanProcessors: [processor] }))!;
    e = await startEmbedded({}, { tracing });
  });
  afterAll(async () => {
    await e.close();
    await tracing.shutdown();
  });

  it("traces a determination: request span, client spans and the services' server spans", async () => {
    exporter.reset();
    const res = await e.app.inject({ ...request("trace-embedded-1"), url: "/api/v1/determine" });
    expect(res.statusCode).toBe(200);
    await processor.forceFlush();
    const kinds = ["internal", "server", "client"] as const;
    const spans: SpanRecord[] = exporter.getFinishedSpans().map((s) => ({
      traceId: s.spanContext().traceId,
      spanId: s.spanContext().spanId,
      parentSpanId: s.parentSpanContext?.spanId,
      name: s.name,
      kind: kinds[s.kind] ?? "internal",
      service: String(s.resource.attributes["service.name"]),
      attributes: s.attributes,
    }));
    assertDeterminationTree(spans, "trace-embedded-1", { gateway: "permits-embedded", entitlement: "permits-embedded", ratelimit: "permits-embedded", stormwater: "permits-embedded" });
  });

  it("lets browsers send traceparent and tracestate (CORS preflight)", async () => {
    const res = await e.app.inject({ method: "OPTIONS", url: "/api/v1/determine", headers: { origin: "https://app.example", "access-control-request-method": "POST", "access-control-request-headers": "traceparent,tracestate" } });
    expect(res.statusCode).toBe(204);
    expect(String(res.headers["access-control-allow-headers"]).split(/, */)).toEqual(expect.arrayContaining(["traceparent", "tracestate"]));
  });

  it("does not trace probes and scrapes", async () => {
    exporter.reset();
    for (const url of ["/healthz", "/readyz", "/metrics"]) await e.app.inject({ url });
    await processor.forceFlush();
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual([]);
  });
});

/** An OTLP/HTTP receiver of JSON-encoded traces, as a collector would be. */
async function otlpReceiver() {
  const spans: SpanRecord[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.url === "/v1/traces" && req.headers["content-type"] === "application/json") spans.push(...fromOtlpJson(JSON.parse(Buffer.concat(chunks).toString())));
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`, spans, close: () => new Promise((r) => server.close(r)) };
}

type OtlpValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean };
type OtlpAttributes = { key: string; value: OtlpValue }[];
function fromOtlpJson(body: { resourceSpans: { resource: { attributes: OtlpAttributes }; scopeSpans: { spans: { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes: OtlpAttributes }[] }[] }[] }): SpanRecord[] {
  const attrs = (a: OtlpAttributes) => Object.fromEntries(a.map(({ key, value }) => [key, value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : value.boolValue)]));
  // OTLP's SpanKind: 1 internal, 2 server, 3 client.
  const kinds: Record<number, SpanRecord["kind"]> = { 1: "internal", 2: "server", 3: "client" };
  return body.resourceSpans.flatMap((rs) =>
    rs.scopeSpans.flatMap((ss) =>
      ss.spans.map((s) => ({
        traceId: s.traceId,
        spanId: s.spanId,
        parentSpanId: s.parentSpanId || undefined,
        name: s.name,
        kind: kinds[s.kind],
        service: String(attrs(rs.resource.attributes)["service.name"]),
        attributes: attrs(s.attributes),
      })),
    ),
  );
}

describe("distributed (OTLP/HTTP to a receiver)", () => {
  let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
  let d: Distributed;
  beforeAll(async () => {
    receiver = await otlpReceiver();
    d = await startDistributed({
      TIERS_FILE: generousTiersFile(),
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_BSP_SCHEDULE_DELAY: "50",
    });
  });
  afterAll(async () => {
    await d?.close();
    await receiver?.close();
  });

  it("traces a determination across the gateway and the services, linked by traceparent", async () => {
    const res = await fetch(`${d.baseUrl}/api/v1/determine`, request("trace-distributed-1"));
    expect(res.status).toBe(200);
    const ofTrace = () => receiver.spans.filter((s) => s.traceId === TRACE_ID);
    const deadline = Date.now() + 5000;
    while (ofTrace().length < 8 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 200)); // and nothing more arrives
    assertDeterminationTree(ofTrace(), "trace-distributed-1", { gateway: "gateway", entitlement: "entitlement", ratelimit: "ratelimit", stormwater: "stormwater" });
  });
});
