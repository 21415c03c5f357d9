// Standalone hosting of one service: Connect, gRPC and gRPC-Web over HTTP/2 cleartext and
// HTTP/1.1 on a single port, the gRPC health-checking protocol, and graceful shutdown.
import http from "node:http";
import http2 from "node:http2";
import net from "node:net";
import type { DescService } from "@bufbuild/protobuf";
import { Code, ConnectError, type ConnectRouter, type Interceptor, type ServiceImpl } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import type { Registry } from "prom-client";
import { Health, HealthCheckResponse_ServingStatus as Status } from "@permits/proto/grpc/health/v1/health";
import type { HostedService, Logger } from "@permits/runtime";
import { CONNECTION_WINDOW_BYTES, MAX_REQUEST_BYTES, SESSION_MEMORY_MB, STREAM_WINDOW_BYTES } from "../wire/limits.js";
import { leanUnary } from "./lean-unary.js";
import { rpcServerMetrics } from "../interceptors/metrics.js";
import { internalErrors } from "../chain/pipeline.js";

export interface ServeOptions {
  name: string;
  services: HostedService[];
  host: string;
  port: number;
  logger: Logger;
  /**
   * The service's Connect interceptors, run for every call on every path (connect-node's
   * adapter, the lean unary path, each call of a coalesced exchange). Unexpected failures are
   * hidden and logged on every path before the chain sees them as the caller will (pipeline.ts).
   */
  interceptors?: readonly Interceptor[];
  /** How long in-flight calls may run after shutdown begins before they are aborted. */
  shutdownGraceMs?: number;
  /** Limits for slow and abusive clients; defaults in DEFAULT_LIMITS. */
  limits?: Partial<ServiceLimits>;
  /** Gets the RPC metrics of every path (served by the metrics listener, not on this port). */
  metrics?: Registry;
}

export interface ServiceLimits {
  /** A connection must send its first bytes, and an HTTP/1.1 request its head, within this time. */
  headersTimeoutMs: number;
  /** An HTTP/1.1 request must be received whole within this time. */
  requestTimeoutMs: number;
  /** An idle HTTP/1.1 keep-alive connection is closed after this time. */
  keepAliveTimeoutMs: number;
  /** Largest HTTP/1.1 request head. */
  maxHeaderBytes: number;
  /** Open connections in all. */
  maxConnections: number;
  /** Concurrent streams one HTTP/2 session may open. */
  maxConcurrentStreams: number;
  /**
   * An HTTP/2 session is asked to go away after this long (±10 %), so that callers reconnect and
   * a replica added behind a load balancer gets calls too; 0 keeps sessions for good.
   */
  maxConnectionAgeMs: number;
  /** Largest request message read, on every path; a larger one is refused with ResourceExhausted. */
  maxRequestBytes: number;
}

export const DEFAULT_LIMITS: ServiceLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxHeaderBytes: 16_384,
  maxConnections: 10_000,
  maxConcurrentStreams: 1_000,
  maxConnectionAgeMs: 0,
  maxRequestBytes: MAX_REQUEST_BYTES,
};

export interface RunningService {
  port: number;
  /** Stops accepting, lets in-flight calls finish (up to the grace period), then resolves. */
  close(): Promise<void>;
}

// Every HTTP/2 connection opens with this preface; no HTTP/1.x request line starts with "PRI".
const H2_PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");

export async function serve(opts: ServeOptions): Promise<RunningService> {
  const { logger } = opts;
  const limits = { ...DEFAULT_LIMITS, ...opts.limits };
  let serving = true;
  const abortInFlight = new AbortController();
  const watchers = new Set<() => void>();

  const statusOf = (service: string) => {
    if (service !== "" && !opts.services.some((s) => s.service.typeName === service)) {
      throw new ConnectError(`unknown service ${service}`, Code.NotFound);
    }
    return serving ? Status.SERVING : Status.NOT_SERVING;
  };

  const health: Partial<ServiceImpl<typeof Health>> = {
    check: (req) => ({ status: statusOf(req.service) }),
    async *watch(req, ctx) {
      yield { status: statusOf(req.service) };
      // One more message when serving stops, then the stream ends with the server.
      await new Promise<void>((resolve) => {
        const done = () => resolve();
        watchers.add(done);
        ctx.signal.addEventListener("abort", done, { once: true });
      });
      if (!ctx.signal.aborted) yield { status: Status.NOT_SERVING };
    },
  };
  const withHealth: HostedService[] = [...opts.services, { service: Health, impl: health }];
  // gRPC server reflection describes exactly what this process hosts (reflection.ts). Loaded
  // here, not imported: the gateway imports this module for its constants and needs none of it.
  const { reflectionServices } = await import("./reflection.js");
  const hosted = [...withHealth, ...reflectionServices(withHealth.map((s) => s.service))];
  const routes = (router: ConnectRouter) => {
    for (const s of hosted) router.service(s.service, s.impl as never);
  };

  // Outermost, so calls the rest of the chain refuses (an unknown caller) are counted too.
  const interceptors = opts.metrics ? [rpcServerMetrics(opts.metrics), ...(opts.interceptors ?? [])] : (opts.interceptors ?? []);
  const connectHandler = connectNodeAdapter({
    routes,
    interceptors: [internalErrors(logger), ...interceptors],
    shutdownSignal: abortInFlight.signal,
    readMaxBytes: limits.maxRequestBytes,
  });
  // GET /metrics is not served here: it has its own listener (metrics-listener.ts).
  const handler = connectHandler;
  // Node refuses new streams (ENHANCE_YOUR_CALM) once a session buffers more than
  // maxSessionMemory (10 MB by default); a gateway multiplexes many large batch answers over
  // one session, so allow more.
  // Binary Connect unary calls on HTTP/2 are answered from the stream (lean-unary.ts); the
  // adapter takes the rest. Node's compatibility layer still sees every stream, so the adapter
  // skips the ones already answered.
  const answered = new WeakSet<http2.ServerHttp2Stream>();
  const lean = leanUnary(hosted, { logger, shutdownSignal: abortInFlight.signal, interceptors, maxRequestBytes: limits.maxRequestBytes });
  const h2 = http2.createServer({ maxSessionMemory: SESSION_MEMORY_MB, settings: { initialWindowSize: STREAM_WINDOW_BYTES, maxConcurrentStreams: limits.maxConcurrentStreams } }, (req, res) => {
    if (!answered.has(req.stream)) handler(req, res);
  });
  h2.prependListener("stream", (stream, headers) => {
    if (lean(stream, headers)) answered.add(stream);
  });
  const h1 = http.createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      maxHeaderSize: limits.maxHeaderBytes,
      connectionsCheckingInterval: 1000,
    },
    handler,
  );
  // The head and request timeouts are enforced by a check Node starts when a server begins
  // listening; this one is handed its connections instead (below), so start the check here.
  h1.emit("listening");
  const sessions = new Set<http2.Http2Session>();
  h2.on("session", (s) => {
    s.setLocalWindowSize(CONNECTION_WINDOW_BYTES);
    sessions.add(s);
    s.once("close", () => sessions.delete(s));
    if (limits.maxConnectionAgeMs > 0) retireAtAge(s, limits.maxConnectionAgeMs);
  });

  const sockets = new Set<net.Socket>();
  const h1Sockets = new Set<net.Socket>();
  const front = net.createServer((socket) => {
    // Small RPC frames must not wait on Nagle's algorithm: without it each call can stall ~40 ms.
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    // A connection that sends nothing is closed at the head timeout.
    socket.setTimeout(limits.headersTimeoutMs, () => socket.destroy());
    socket.once("data", (chunk) => {
      socket.setTimeout(0);
      socket.pause();
      // Both servers read what was pushed back before reading the socket (HTTP/2 sessions take
      // such data: nodejs/node#41185; serve.test.ts and test/deployments run over this path), so
      // the sniffed bytes are not lost and the session works on the socket itself, with no
      // JavaScript stream in between.
      socket.unshift(chunk);
      const n = Math.min(chunk.length, H2_PREFACE.length);
      if (chunk.subarray(0, n).equals(H2_PREFACE.subarray(0, n))) {
        h2.emit("connection", socket);
      } else {
        h1Sockets.add(socket);
        socket.once("close", () => h1Sockets.delete(socket));
        h1.emit("connection", socket);
        socket.resume();
      }
    });
  });

  front.maxConnections = limits.maxConnections;
  await new Promise<void>((resolve, reject) => {
    front.once("error", reject);
    front.listen(opts.port, opts.host, () => resolve());
  });
  const address = front.address() as net.AddressInfo;
  logger.info({ service: opts.name, host: opts.host, port: address.port }, "service listening");

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      serving = false;
      for (const w of watchers) w();
      front.close();
      // GOAWAY on HTTP/2: no new streams, open ones finish. HTTP/1.1: idle sockets close, busy
      // ones once their response is out. The inner servers never listened themselves, so their
      // close() would not wait for anything: drain by watching the connections instead.
      for (const s of sessions) s.close();
      const grace = opts.shutdownGraceMs ?? 10_000;
      const deadline = Date.now() + grace;
      while (sessions.size > 0 || h1Sockets.size > 0) {
        if (Date.now() > deadline) {
          abortInFlight.abort();
          break;
        }
        h1.closeIdleConnections();
        await new Promise((r) => setTimeout(r, 20));
      }
      for (const s of sockets) s.destroy();
      h1.close(() => {}); // stops the timeout check started above
      logger.info({ service: opts.name }, "service stopped");
    })());

  return { port: address.port, close };
}

/**
 * Retires a session once it is `ageMs` old, as gRPC's MAX_CONNECTION_AGE does: GOAWAY, then the
 * streams in flight finish and the caller opens a new connection. A call the caller sent before
 * it saw the GOAWAY is refused unprocessed, and the project's HTTP/2 client sends it again
 * (h2-transport.ts). The jitter keeps sessions opened together from leaving together.
 */
function retireAtAge(session: http2.Http2Session, ageMs: number): void {
  const timer = setTimeout(() => {
    if (!session.closed && !session.destroyed) session.close();
  }, ageMs * (0.9 + Math.random() * 0.2));
  timer.unref();
  session.once("close", () => clearTimeout(timer));
}

/** SIGTERM and SIGINT close the service gracefully, then the process exits. */
export function closeOnSignals(running: { close(): Promise<void> }, logger: Logger): void {
  const stop = (signal: string) => {
    logger.info({ signal }, "shutting down");
    running.close().then(
      () => process.exit(0),
      (e) => {
        logger.error({ err: e }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.once("SIGTERM", () => stop("SIGTERM"));
  process.once("SIGINT", () => stop("SIGINT"));
}
