// Prometheus metrics (prom-client): a registry per process with Node's default process metrics,
// and the RPC metrics as Connect interceptors on the one chain, so every path a call can take
// (connect-node's adapter, the lean unary path, each coalesced call, the direct transport) counts.
// Labels are methods, codes and services only: never a key, an address or a request id.
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { collectDefaultMetrics, Counter, Histogram, Registry } from "prom-client";

export const METRICS_PATH = "/metrics";
export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/** Sub-millisecond engine calls to multi-second outages. */
const RPC_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** A fresh registry holding the default process metrics (CPU, memory, event loop lag, GC). */
export function processRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** A code's name in snake case ("unavailable", "deadline_exceeded"), as Connect spells it on the wire. */
export function codeName(code: Code): string {
  return Code[code].replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase();
}

/** An outcome's code label: "ok", or the error's code name. */
export function codeLabel(e: unknown): string {
  return e === undefined ? "ok" : codeName(ConnectError.from(e).code);
}

type Labels = Record<string, string>;

/**
 * Counts (and times) under label sets that are made once and kept, by a key the caller builds:
 * prom-client hashes a label object on every call otherwise, and these run on the hot path.
 */
export function recorder(total: Counter, duration?: Histogram): (key: string, labels: () => Labels, seconds?: number) => void {
  const children = new Map<string, (seconds?: number) => void>();
  return (key, labels, seconds) => {
    let record = children.get(key);
    if (!record) {
      const l = labels();
      const counter = total.labels(l);
      const histogram = duration?.labels(l);
      record = (s) => {
        counter.inc();
        if (histogram && s !== undefined) histogram.observe(s);
      };
      children.set(key, record);
    }
    record(seconds);
  };
}

/** Times each call and records it under its labels and outcome code. */
function timed(labelsOf: (service: string, method: string) => Labels, total: Counter, duration: Histogram): Interceptor {
  const record = recorder(total, duration);
  const done = (service: string, method: string, code: string, started: number) =>
    record(`${service}/${method}/${code}`, () => ({ ...labelsOf(service, method), code }), (performance.now() - started) / 1000);
  return (next) => async (req) => {
    const started = performance.now();
    try {
      const res = await next(req);
      done(req.service.typeName, req.method.name, "ok", started);
      return res;
    } catch (e) {
      done(req.service.typeName, req.method.name, codeLabel(e), started);
      throw e;
    }
  };
}

/** Served calls by method and code: `rpc_server_requests_total`, `rpc_server_duration_seconds`. */
export function rpcServerMetrics(registry: Registry): Interceptor {
  const labelNames = ["method", "code"];
  const total = new Counter({ name: "rpc_server_requests_total", help: "RPCs served, by method and gRPC code.", labelNames, registers: [registry] });
  const duration = new Histogram({ name: "rpc_server_duration_seconds", help: "Time to serve an RPC, by method and gRPC code.", labelNames, buckets: RPC_BUCKETS, registers: [registry] });
  return timed((service, method) => ({ method: `${service}/${method}` }), total, duration);
}

/** Calls the gateway makes, by service, method and code: `rpc_client_requests_total`, `rpc_client_duration_seconds`. */
export function rpcClientMetrics(registry: Registry): Interceptor {
  const labelNames = ["service", "method", "code"];
  const total = new Counter({ name: "rpc_client_requests_total", help: "RPCs made to a service, by service, method and gRPC code.", labelNames, registers: [registry] });
  const duration = new Histogram({ name: "rpc_client_duration_seconds", help: "Time until a service answered an RPC, by service, method and gRPC code.", labelNames, buckets: RPC_BUCKETS, registers: [registry] });
  return timed((service, method) => ({ service, method }), total, duration);
}

/**
 * Determinations an engine made, by engine and outcome (the stormwater coverage verdict or the
 * NWP verdict, as the enum names them): `engine_determinations_total`.
 */
export function determinationMetrics(registry: Registry, engine: string): (outcome: string) => void {
  // One counter for both engines: an embedded gateway builds both on its one registry.
  const name = "engine_determinations_total";
  const counter = (registry.getSingleMetric(name) as Counter | undefined) ?? new Counter({ name, help: "Determinations made, by engine and outcome (coverage or verdict).", labelNames: ["engine", "outcome"], registers: [registry] });
  const record = recorder(counter);
  return (outcome) => record(outcome, () => ({ engine, outcome }));
}
