// Traces through the OpenTelemetry Node SDK, configured by the standard OTEL_* variables. Off
// unless an exporter is asked for: then no SDK is started and no interceptor is added, so the
// chains stay empty and the hot paths keep their interceptor-free fast path (pipeline.ts).
//
// RPC spans are Connect interceptors on the one chain every transport runs (pipeline.ts): a
// client span per call, and a server span in the service whose parent arrives in the call's
// own `traceparent` header. Each call carries its own header, so each call of a coalesced
// exchange keeps its own parent.
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
  type TextMapGetter,
  type TextMapSetter,
  type Tracer,
} from "@opentelemetry/api";
import type { NodeSDKConfiguration } from "@opentelemetry/sdk-node";
import { ConnectError, type Interceptor, type UnaryRequest } from "@connectrpc/connect";
import { ConfigError } from "@permits/runtime";
import { codeName } from "./metrics.js";

/** The exporters and OTLP protocols the Node SDK knows; anything else would silently export nothing. */
const EXPORTERS = ["otlp", "console", "zipkin", "none"];
const PROTOCOLS = ["http/protobuf", "http/json", "grpc"];

/**
 * Whether the environment asks for traces: an OTLP endpoint or an exporter other than `none`.
 * A value the SDK would ignore (a misspelt exporter or protocol) is a configuration error.
 */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  const unknown = exporters.filter((e) => !EXPORTERS.includes(e));
  if (unknown.length > 0) throw new ConfigError(`invalid configuration: OTEL_TRACES_EXPORTER: unknown exporter ${unknown.map((e) => JSON.stringify(e)).join(", ")} (one of ${EXPORTERS.join(", ")})`);
  for (const name of ["OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"]) {
    const protocol = env[name]?.trim();
    if (protocol && !PROTOCOLS.includes(protocol)) throw new ConfigError(`invalid configuration: ${name}: unknown protocol ${JSON.stringify(protocol)} (one of ${PROTOCOLS.join(", ")})`);
  }
  if (exporters.length > 0) return !exporters.every((e) => e === "none");
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

export interface Tracing {
  tracer: Tracer;
  /** The caller's side: a client span per call, its context sent as `traceparent`. */
  client: Interceptor;
  /** The service's side: a server span per call, child of the caller's span. */
  server: Interceptor;
  /** Exports what is buffered and stops the SDK. */
  shutdown(): Promise<void>;
}

/**
 * Starts the SDK when the environment asks for traces, for the process role `name` (the
 * service name unless OTEL_SERVICE_NAME says otherwise). `spanProcessors` replaces the exporters
 * the environment names (tests use an in-memory one).
 */
export async function startTracing(name: string, env: NodeJS.ProcessEnv, opts: Pick<NodeSDKConfiguration, "spanProcessors"> = {}): Promise<Tracing | undefined> {
  if (!opts.spanProcessors && !tracingRequested(env)) return undefined;
  // Loaded only when asked for: the SDK and its exporters take ~0.5 s and ~30 MB to load.
  const { NodeSDK } = await import("@opentelemetry/sdk-node");
  const sdk = new NodeSDK({
    ...(env.OTEL_SERVICE_NAME ? {} : { serviceName: name }),
    // Traces only: metrics are Prometheus (GET /metrics) and logs are pino lines on stdout.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [],
    ...opts,
  });
  sdk.start();
  const tracer = trace.getTracer("@permits/rpc");
  return { tracer, ...rpcTracing(tracer), shutdown: () => sdk.shutdown() };
}

const headerSetter: TextMapSetter<Headers> = { set: (h, k, v) => h.set(k, v) };
const headerGetter: TextMapGetter<Headers> = {
  keys: (h) => [...h.keys()],
  get: (h, k) => h.get(k) ?? undefined,
};

/** The two RPC interceptors over `tracer`; streaming calls pass through untraced. */
export function rpcTracing(tracer: Tracer): Pick<Tracing, "client" | "server"> {
  const client: Interceptor = (next) => (req) => {
    if (req.stream) return next(req);
    return tracer.startActiveSpan(spanName(req), { kind: SpanKind.CLIENT, attributes: rpcAttributes(req) }, (span) => {
      propagation.inject(context.active(), req.header, headerSetter);
      return ended(span, next(req));
    });
  };
  const server: Interceptor = (next) => (req) => {
    if (req.stream) return next(req);
    const parent = propagation.extract(ROOT_CONTEXT, req.header, headerGetter);
    return tracer.startActiveSpan(spanName(req), { kind: SpanKind.SERVER, attributes: rpcAttributes(req) }, parent, (span) => ended(span, next(req)));
  };
  return { client, server };
}

function spanName(req: UnaryRequest): string {
  return `${req.service.typeName}/${req.method.name}`;
}

// The RPC semantic conventions' attribute names (connect_rpc is their name for this protocol).
function rpcAttributes(req: UnaryRequest): Attributes {
  return { "rpc.system": "connect_rpc", "rpc.service": req.service.typeName, "rpc.method": req.method.name };
}

/** Ends `span` when the call settles, with the call's Connect code on failure. */
async function ended<T>(span: Span, call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (e) {
    const code = ConnectError.from(e).code;
    span.setAttribute("rpc.connect_rpc.error_code", codeName(code));
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw e;
  } finally {
    span.end();
  }
}
