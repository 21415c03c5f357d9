// The server side of the lean unary path (see h2-transport.ts for the client): a Connect unary
// call in binary form, uncompressed, on an HTTP/2 stream is answered straight from the stream,
// and so is each call of a coalesced exchange (permits.transport.v1.CoalescedService/Stream,
// answered call by call as each is done). Every call, on its own, runs the service's interceptor
// chain (pipeline.ts), as connect-node's adapter runs it for the calls it answers.
// Everything else (JSON, gRPC, gRPC-Web, compression, streaming, HTTP/1.1) goes to
// connect-node's adapter, which stays the reference implementation of the protocol.
// Why: the adapter's per-call objects cost several times the exchange itself (README.md, Measurements).
import type http2 from "node:http2";
import { create, fromBinary, isMessage, toBinary, type DescMessage, type DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { encodeEnvelope } from "@connectrpc/connect/protocol";
import { codeToHttpStatus, endStreamToJson, errorToJsonBytes, parseTimeout } from "@connectrpc/connect/protocol-connect";
import { CoalescedService, StreamRequestSchema, StreamResponseSchema, type UnaryCall } from "@permits/proto/transport/v1/transport";
import { LeanContext } from "../client/direct-transport.js";
import { END_STREAM_FLAG, EnvelopeReader } from "../wire/envelope.js";
import { fromH2Headers, unaryContentType } from "../wire/h2-headers.js";
import { MAX_COALESCED_CALLS, MAX_REQUEST_BYTES } from "../wire/limits.js";
import type { HostedService, Logger } from "@permits/runtime";
import { chainHandler, type ChainedHandler } from "../chain/pipeline.js";

interface Route {
  method: DescMethod & { input: DescMessage; output: DescMessage };
  handler: ChainedHandler;
}

/** What one call is answered: an HTTP status, response headers and the body (message or error JSON). */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

export const COALESCED_PATH = `/${CoalescedService.typeName}/${CoalescedService.method.stream.name}`;
export const STREAM_PROTO = "application/connect+proto";

export interface LeanUnaryOptions {
  logger: Logger;
  /** Aborts the calls still running when the graceful shutdown's grace period ends. */
  shutdownSignal: AbortSignal;
  /** The service's interceptor chain, run for each call. */
  interceptors: readonly Interceptor[];
  /** Largest request body read; MAX_REQUEST_BYTES when unset. */
  maxRequestBytes?: number;
}

/**
 * Returns a function that takes a new HTTP/2 stream and answers it if it is a lean unary call
 * or a coalesced exchange (returning true), or leaves it untouched for the adapter (returning
 * false).
 */
export function leanUnary(services: HostedService[], opts: LeanUnaryOptions): (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => boolean {
  const routes = new Map<string, Route>();
  for (const { service, impl } of services) {
    for (const method of service.methods) {
      const fn = (impl as Record<string, unknown>)[method.localName];
      if (method.methodKind === "unary" && typeof fn === "function") {
        routes.set(`/${service.typeName}/${method.name}`, { method: method as Route["method"], handler: chainHandler(method, fn.bind(impl), opts.interceptors) });
      }
    }
  }
  // Calls still running when the graceful shutdown gives up on them.
  const inFlight = new Set<(reason: ConnectError) => void>();
  opts.shutdownSignal.addEventListener("abort", () => {
    for (const stop of [...inFlight]) stop(new ConnectError("the server is shutting down", Code.Unavailable));
  }, { once: true });
  const running: Running = { logger: opts.logger, inFlight };
  const maxBytes = opts.maxRequestBytes ?? MAX_REQUEST_BYTES;

  return (stream, headers) => {
    if (headers[":method"] !== "POST") return false;
    const encoding = headers["content-encoding"] ?? headers["connect-content-encoding"];
    if (encoding !== undefined && encoding !== "identity") return false;
    const path = headers[":path"] ?? "";
    if (path === COALESCED_PATH && headers["content-type"] === STREAM_PROTO) {
      readBody(stream, maxBytes, (err, body) => (err ? endExchange(stream, err) : exchange(stream, body, maxBytes, routes, running)));
      return true;
    }
    if (headers["content-type"] !== "application/proto" || headers["connect-protocol-version"] !== "1") return false;
    const route = routes.get(path);
    if (!route) return false;
    const timeout = parseTimeout((headers["connect-timeout-ms"] as string | undefined) ?? null, Number.MAX_SAFE_INTEGER);
    if (timeout.error) {
      respond(stream, errorAnswer(timeout.error, undefined, opts.logger, path));
      return true;
    }
    readBody(stream, maxBytes, (err, body) => {
      if (err) return respond(stream, errorAnswer(err, undefined, opts.logger, path));
      void answer(route, body, timeout.timeoutMs, () => fromH2Headers(headers), running, watchClose(stream)).then((a) => respond(stream, a));
    });
    return true;
  };
}

/** Reads the whole request body, up to maxBytes. */
function readBody(stream: http2.ServerHttp2Stream, maxBytes: number, then: (err: ConnectError | undefined, body: Buffer) => void): void {
  stream.on("error", () => {}); // a reset by the client ends the call; nothing to answer
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  stream.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxBytes) tooLarge = true;
    else chunks.push(chunk);
  });
  stream.on("end", () => {
    if (stream.headersSent || stream.destroyed) return;
    if (tooLarge) return then(new ConnectError(`message larger than ${maxBytes} bytes`, Code.ResourceExhausted), Buffer.alloc(0));
    then(undefined, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
  });
}

/** The client going away ends the handler's wait too. */
function watchClose(stream: http2.ServerHttp2Stream): OnClose {
  return (stop) => {
    stream.once("close", stop);
    return () => stream.off("close", stop);
  };
}

function respond(stream: http2.ServerHttp2Stream, a: Answer): void {
  if (stream.destroyed || stream.headersSent) return;
  stream.respond({ ...a.headers, ":status": a.status, "content-type": unaryContentType(a.status) });
  stream.end(a.body);
}

/** A coalesced exchange: one enveloped request of calls; each call's result is sent when it is done. */
function exchange(stream: http2.ServerHttp2Stream, body: Buffer, maxBytes: number, routes: Map<string, Route>, running: Running): void {
  let calls: UnaryCall[];
  try {
    const envelopes = new EnvelopeReader(maxBytes).push(body);
    if (envelopes.length !== 1 || envelopes[0].data.length + 5 !== body.length) throw new ConnectError("expected one request message", Code.InvalidArgument);
    calls = fromBinary(StreamRequestSchema, envelopes[0].data).calls;
  } catch (e) {
    return endExchange(stream, e instanceof ConnectError ? e : new ConnectError("the request message could not be decoded", Code.InvalidArgument));
  }
  if (calls.length > MAX_COALESCED_CALLS) {
    return endExchange(stream, new ConnectError(`at most ${MAX_COALESCED_CALLS} calls per exchange; got ${calls.length}`, Code.InvalidArgument));
  }
  stream.respond({ ":status": 200, "content-type": STREAM_PROTO });
  // One watcher on the exchange's stream for all of its calls.
  const stops = new Set<() => void>();
  stream.once("close", () => {
    for (const stop of [...stops]) stop();
  });
  const onClose: OnClose = (stop) => {
    stops.add(stop);
    return () => stops.delete(stop);
  };
  let open = calls.length;
  // Results ready together (the engines answer synchronously, so a whole exchange is often ready
  // within one drain of the microtask queue) go out in one write.
  let ready: Uint8Array[] = [];
  const flush = () => {
    const out = ready;
    ready = [];
    if (stream.destroyed) return;
    if (open === 0) endExchange(stream, undefined, out);
    else stream.write(out.length === 1 ? out[0] : Buffer.concat(out));
  };
  const send = (index: number, a: Answer) => {
    if (ready.length === 0) process.nextTick(flush);
    ready.push(encodeEnvelope(0, toBinary(StreamResponseSchema, create(StreamResponseSchema, { index, result: a }))));
    open--;
  };
  if (open === 0) return endExchange(stream);
  calls.forEach((c, i) => {
    const route = routes.get(c.procedure);
    if (!route) return send(i, errorAnswer(new ConnectError(`${c.procedure} is not served here`, Code.Unimplemented), undefined, running.logger, c.procedure));
    void answer(route, c.message, c.timeoutMs === 0 ? undefined : c.timeoutMs, () => c.headers, running, onClose).then((a) => send(i, a));
  });
}

const END_OK = encodeEnvelope(END_STREAM_FLAG, new TextEncoder().encode("{}"));

/** Ends a coalesced exchange (after the last results) with the Connect end-of-stream message, carrying the error if any. */
function endExchange(stream: http2.ServerHttp2Stream, err?: ConnectError, last: Uint8Array[] = []): void {
  if (stream.destroyed) return;
  if (!stream.headersSent) stream.respond({ ":status": 200, "content-type": STREAM_PROTO });
  const end = err === undefined ? END_OK : encodeEnvelope(END_STREAM_FLAG, new TextEncoder().encode(JSON.stringify(endStreamToJson(err.metadata, err, undefined))));
  stream.end(last.length === 0 ? end : Buffer.concat([...last, end]));
}
/** What every call of one server shares: where failures are logged, and the calls still running. */
interface Running {
  logger: Logger;
  inFlight: Set<(reason: ConnectError) => void>;
}

/** Watches the client going away; returns the function that stops watching. */
type OnClose = (stop: () => void) => () => void;

/** Runs one call to its answer; never rejects. */
async function answer(route: Route, body: Uint8Array, timeoutMs: number | undefined, headers: () => HeadersInit, opts: Running, onClose?: OnClose): Promise<Answer> {
  const { method, handler } = route;
  const deadline = timeoutMs === undefined ? undefined : performance.now() + timeoutMs;
  const ctx = new LeanContext(method, headers, undefined, "connect", deadline);
  try {
    let request;
    try {
      request = fromBinary(method.input, body);
    } catch (e) {
      throw new ConnectError("the request message could not be decoded", Code.InvalidArgument, undefined, undefined, e);
    }
    const output = await settle(handler(request, ctx), ctx, timeoutMs, opts.inFlight, onClose);
    const message = isMessage(output, method.output) ? output : create(method.output, output as never);
    const out: Record<string, string> = {};
    if (ctx.hasHeaders()) {
      ctx.responseHeader.forEach((v, k) => (out[k] = v));
      // Connect unary carries trailers as headers with a "trailer-" prefix.
      ctx.responseTrailer.forEach((v, k) => (out[`trailer-${k}`] = v));
    }
    return { status: 200, headers: out, body: toBinary(method.output, message) };
  } catch (e) {
    return errorAnswer(e, ctx, opts.logger, `/${method.parent.typeName}/${method.name}`);
  }
}

/**
 * The handler's result, or the reason it was cut short: the deadline, the client going away, or
 * the end of a graceful shutdown. The handler's signal (made only if it reads it) fires too.
 * No abort controller is made per call otherwise.
 */
function settle(result: unknown, ctx: LeanContext, timeoutMs: number | undefined, inFlight: Running["inFlight"], onClose: OnClose | undefined): Promise<unknown> {
  if (!(result instanceof Promise)) return Promise.resolve(result);
  return new Promise((resolve, reject) => {
    const stop = (reason: ConnectError) => {
      cleanup();
      ctx.abort(reason);
      reject(reason);
    };
    const timer = timeoutMs === undefined ? undefined : setTimeout(() => stop(new ConnectError("the operation timed out", Code.DeadlineExceeded)), timeoutMs);
    const unwatch = onClose?.(() => stop(new ConnectError("the client cancelled the call", Code.Canceled)));
    const cleanup = () => {
      if (timer !== undefined) clearTimeout(timer);
      unwatch?.();
      inFlight.delete(stop);
    };
    inFlight.add(stop);
    result.then(
      (v) => {
        cleanup();
        resolve(v);
      },
      (e) => {
        cleanup();
        reject(e);
      },
    );
  });
}

function errorAnswer(e: unknown, ctx: LeanContext | undefined, logger: Logger, procedure: string): Answer {
  const aborted = ctx?.signal.aborted && ctx.signal.reason instanceof ConnectError ? ctx.signal.reason : undefined;
  const err = e instanceof ConnectError ? e : aborted ?? new ConnectError("internal error", Code.Internal, undefined, undefined, e);
  // What a handler throws that is not a ConnectError: logged with its cause; callers see only the code.
  if (!(e instanceof ConnectError) && !aborted) logger.error({ err: e, rpc: procedure }, "rpc failed");
  const headers: Record<string, string> = {};
  if (ctx?.hasHeaders()) ctx.responseHeader.forEach((v, k) => (headers[k] = v));
  err.metadata.forEach((v, k) => (headers[k] = v));
  return { status: codeToHttpStatus(err.code), headers, body: errorToJsonBytes(err, {}) };
}
