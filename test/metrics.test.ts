// GET /metrics on the metrics listener (METRICS_PORT) of the gateway and of every service, in the
// Prometheus text format, read back with a real parser: the request, RPC and process metrics are
// there with the labels docs/operations.md lists, no label carries a key, address or request id,
// and the public ports answer 404 for /metrics.
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { SERVICES } from "@permits/gateway/services";
import { sendToken } from "@permits/rpc";
import { EntitlementService, KeyKind } from "@permits/proto/entitlement/v1/entitlement";
import { generousTiersFile, startDistributed, TEST_OPERATOR_TOKEN, waitFor, type Distributed } from "./support/processes.js";

interface Family {
  name: string;
  type: string;
  metrics: { labels?: Record<string, string>; value?: string; count?: string }[];
}

async function scrape(baseUrl: string): Promise<{ contentType: string | null; text: string; families: Map<string, Family> }> {
  const res = await fetch(`${baseUrl}/metrics`);
  expect(res.status).toBe(200);
  const text = await res.text();
  const families = parsePrometheusTextFormat(text) as Family[];
  return { contentType: res.headers.get("content-type"), text, families: new Map(families.map((f) => [f.name, f])) };
}

const sample = (f: Family | undefined, labels: Record<string, string>) => f?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));

let d: Distributed;
const site = JSON.stringify({ state: "TX", activity: "construction", acres: 5 });
beforeAll(async () => {
  // Any free metrics port per process, read back from its "metrics listening" log line.
  d = await startDistributed({ TIERS_FILE: generousTiersFile(), METRICS_PORT: "0", LOG_LEVEL: "info" });
  for (const p of d.procs) await waitFor(async () => /"metricsPort":\d+/.test(p.output()), 10_000, `${p.name}'s metrics listener`);
  for (let i = 0; i < 3; i++) {
    const res = await fetch(`${d.baseUrl}/api/v1/determine`, { method: "POST", body: site, headers: { "content-type": "application/json", "x-request-id": `metrics-probe-${i}` } });
    expect(res.status).toBe(200);
  }
  expect((await fetch(`${d.baseUrl}/api/v1/determine`, { method: "POST", body: site, headers: { "content-type": "application/json", "x-api-key": "svc_live_forgedkey123" } })).status).toBe(401);
  // One idempotent request and its replay, and one MCP tool call.
  const entitlement = createClient(EntitlementService, createConnectTransport({ baseUrl: d.serviceUrls.ENTITLEMENT_URL, httpVersion: "2", interceptors: [sendToken(TEST_OPERATOR_TOKEN)] }));
  const { secret } = await entitlement.issueKey({ kind: KeyKind.TEST, label: "metrics" });
  const idempotent = { "content-type": "application/json", "x-api-key": secret, "idempotency-key": "metrics-once" };
  const first = await fetch(`${d.baseUrl}/api/v1/determine`, { method: "POST", body: site, headers: idempotent });
  const again = await fetch(`${d.baseUrl}/api/v1/determine`, { method: "POST", body: site, headers: idempotent });
  expect([first.status, again.status, again.headers.get("idempotent-replayed")]).toEqual([200, 200, "true"]);
  const tool = await fetch(`${d.baseUrl}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "determine_stormwater_permit", arguments: JSON.parse(site) } }),
  });
  expect(((await tool.json()) as { result: { isError?: boolean } }).result.isError).not.toBe(true);
}, 60_000);
afterAll(async () => d?.close());

/** The metrics listener of a process (gateway, stormwater, ...). */
function metricsOf(name: string): string {
  const out = d.procs.find((p) => p.name === name)!.output();
  const m = /"metricsHost":"([^"]+)","metricsPort":(\d+)/.exec(out)!;
  expect(m[1]).toBe("127.0.0.1"); // loopback by default
  return `http://127.0.0.1:${m[2]}`;
}

describe("GET /metrics", () => {
  it("on the gateway: requests by route, method, status class and surface; calls to each service; process metrics", async () => {
    const { contentType, text, families } = await scrape(metricsOf("gateway"));
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    const requests = families.get("http_server_requests_total");
    expect(requests?.type).toBe("COUNTER");
    expect(sample(requests, { route: "/api/v1/determine", method: "POST", status_class: "2xx", surface: "stormwater" })?.value).toBe("6"); // three, the idempotent pair, the tool's
    expect(sample(requests, { route: "/api/v1/determine", method: "POST", status_class: "4xx", surface: "stormwater" })?.value).toBe("1");
    const latency = families.get("http_server_request_duration_seconds");
    expect(latency?.type).toBe("HISTOGRAM");
    // The parser merges a histogram's labelled series into one, so the count is read from its line.
    expect(text).toContain('http_server_request_duration_seconds_count{route="/api/v1/determine",method="POST",status_class="2xx",surface="stormwater"} 6');
    const upstream = families.get("rpc_client_requests_total");
    expect(sample(upstream, { service: "permits.stormwater.v1.StormwaterService", method: "Determine", code: "ok" })?.value).toBe("5"); // the replay calls no engine
    expect(families.get("rpc_client_duration_seconds")?.type).toBe("HISTOGRAM");
    // Rate decisions by policy and outcome (summed over the binding window), replays, tool calls.
    const decided = (policy: string, outcome: string) =>
      families.get("gateway_rate_decisions_total")?.metrics.filter((m) => m.labels?.policy === policy && m.labels?.outcome === outcome).reduce((n, m) => n + Number(m.value), 0);
    expect(decided("stormwater.anonymous", "admitted")).toBe(4); // three calls and the tool's
    expect(decided("stormwater.test", "admitted")).toBe(1); // the replay spends nothing
    expect(families.get("gateway_idempotent_replays_total")?.metrics[0].value).toBe("1");
    expect(sample(families.get("mcp_tool_calls_total"), { tool: "determine_stormwater_permit", outcome: "ok" })?.value).toBe("1");
    for (const name of ["process_cpu_seconds_total", "process_resident_memory_bytes", "nodejs_eventloop_lag_seconds"]) expect(families.has(name), name).toBe(true);
  });

  it("on every service port: RPCs by method and code, the refused ones too, and process metrics", async () => {
    const stormwater = (await scrape(metricsOf("stormwater"))).families;
    expect(sample(stormwater.get("rpc_server_requests_total"), { method: "permits.stormwater.v1.StormwaterService/Determine", code: "ok" })?.value).toBe("5");
    expect(stormwater.get("rpc_server_duration_seconds")?.type).toBe("HISTOGRAM");
    // Determinations by engine and coverage: the five the engine made (the replay made none).
    const determinations = stormwater.get("engine_determinations_total")?.metrics ?? [];
    expect(determinations.map((m) => [m.labels?.engine, m.labels?.outcome, m.value])).toEqual([["stormwater", "required", "5"]]);
    // A call without the caller's credential is counted with its code.
    const refused = await fetch(`${d.serviceUrls.NWP_URL}/permits.nwp.v1.NwpService/ListActivities`, { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
    expect(refused.status).toBe(401);
    const nwp = (await scrape(metricsOf("nwp"))).families;
    expect(sample(nwp.get("rpc_server_requests_total"), { method: "permits.nwp.v1.NwpService/ListActivities", code: "unauthenticated" })?.value).toBe("1");
    for (const { name } of SERVICES) expect((await scrape(metricsOf(name))).families.has("process_cpu_seconds_total"), name).toBe(true);
  });

  it("the public ports answer 404 for /metrics: the gateway in its error vocabulary, every service", async () => {
    const gw = await fetch(`${d.baseUrl}/metrics`);
    expect(gw.status).toBe(404);
    expect(((await gw.json()) as { error: { code: string } }).error.code).toBe("not_found");
    for (const url of Object.values(d.serviceUrls)) {
      const res = await fetch(`${url}/metrics`);
      await res.arrayBuffer();
      expect(res.status, url).toBe(404);
    }
    // The metrics listener serves /metrics only.
    expect((await fetch(`${metricsOf("gateway")}/api/v1`)).status).toBe(404);
  });

  it("is not metered, not in the discovery index or the OpenAPI document, and no label is a key, address or request id", async () => {
    const res = await fetch(`${metricsOf("gateway")}/metrics`);
    expect(res.headers.get("x-ratelimit-limit")).toBeNull();
    const text = await res.text();
    expect(text).not.toMatch(/svc_live_|metrics-probe-|127\.0\.0\.1|req_[A-Za-z0-9]/);
    const index = await (await fetch(`${d.baseUrl}/api/v1`)).text();
    const openapi = await (await fetch(`${d.baseUrl}/api/openapi`)).text();
    expect(index).not.toContain("/metrics");
    expect(openapi).not.toContain("/metrics");
  });
});
