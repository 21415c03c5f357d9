// The server side of the lean unary path (see h2-transport.ts for the client): a Connect unary
// call in binary form, uncompressed, on an HTTP/2 stream is answered straight from the stream,
// and so is each call of a coalesced exchange (permits.transport.v1.CoalescedService).
// Everything else (JSON, gRPC, gRPC-Web, compression, streaming, HTTP/1.1) goes to
// connect-node's adapter, which stays the reference implementation of the protocol.
//
// Measured here: connect-node's adapter spent about 0.4 ms of CPU per unary call over HTTP/2
// (the compat request and response, universal request and response objects, async iterables,
// linked abort signals), several times the exchange itself.
import type http2 from "node:http2";
import { create, fromBinary, isMessage, toBinary, type DescMessage, type DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import { codeToHttpStatus, errorToJsonBytes, parseTimeout } from "@connectrpc/connect/protocol-connect";
import { CallResponseSchema, CoalescedService, type CallRequest } from "@permits/proto/transport/v1/transport";
import { LeanContext } from "./direct-transport.js";
import { fromH2Headers, unaryContentType } from "./h2-headers.js";
import type { Logger } from "./logger.js";
import type { HostedService } from "./hosted.js";

type UnaryImpl = (req: unknown, ctx: HandlerContext) => unknown;

interface Route {
  method: DescMethod & { input: DescMessage; output: DescMessage };
  impl: UnaryImpl;
}

/** What one call is answered: an HTTP status, response headers and the body (message or error JSON). */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

/** Largest request body read on this path (a batch of 100 projects is a few tens of KB). */
const MAX_REQUEST_BYTES = 8 * 1024 * 1024;
/** Most calls one coalesced exchange may carry. */
export const MAX_COALESCED_CALLS = 1000;

export interface LeanUnaryOptions {
  logger: Logger;
  /** Aborts the calls still running when the graceful shutdown's grace period ends. */
  shutdownSignal: AbortSignal;
}

/**
 * Returns a function that takes a new HTTP/2 stream and answers it if it is a lean unary call
 * (returning true), or leaves it untouched for the adapter (returning false). The coalesced
 * service is served beside the given ones; its calls reach the same handlers.
 */
export function leanUnary(services: HostedService[], opts: LeanUnaryOptions): (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => boolean {
  const routes = new Map<string, Route>();
  const add = (service: HostedService["service"], impl: object) => {
    for (const method of service.methods) {
      const fn = (impl as Record<string, unknown>)[method.localName];
      if (method.methodKind === "unary" && typeof fn === "function") {
        routes.set(`/${service.typeName}/${method.name}`, { method: method as Route["method"], impl: fn.bind(impl) as UnaryImpl });
      }
    }
  };
  for (const { service, impl } of services) add(service, impl);
  // Calls still running when the graceful shutdown gives up on them.
  const inFlight = new Set<(reason: ConnectError) => void>();
  opts.shutdownSignal.addEventListener("abort", () => {
    for (const stop of [...inFlight]) stop(new ConnectError("the server is shutting down", Code.Unavailable));
  }, { once: true });

  const running: Running = { logger: opts.logger, inFlight };

  add(CoalescedService, {
    async call(req: CallRequest): Promise<unknown> {
      if (req.calls.length > MAX_COALESCED_CALLS) {
        throw new ConnectError(`at most ${MAX_COALESCED_CALLS} calls per exchange; got ${req.calls.length}`, Code.InvalidArgument);
      }
      const results = await Promise.all(req.calls.map((c): Promise<Answer> => {
        const route = routes.get(c.procedure);
        if (!route || route.method.parent === CoalescedService) {
          return Promise.resolve(errorAnswer(new ConnectError(`${c.procedure} is not served here`, Code.Unimplemented), undefined, opts.logger, c.procedure));
        }
        return answer(route, c.message, c.timeoutMs === 0 ? undefined : c.timeoutMs, () => c.headers, running);
      }));
      return create(CallResponseSchema, { results });
    },
  });

  return (stream, headers) => {
    if (headers[":method"] !== "POST" || headers["content-type"] !== "application/proto" || headers["connect-protocol-version"] !== "1") return false;
    const encoding = headers["content-encoding"];
    if (encoding !== undefined && encoding !== "identity") return false;
    const path = headers[":path"] ?? "";
    const route = routes.get(path);
    if (!route) return false;
    stream.on("error", () => {}); // a reset by the client ends the call; nothing to answer
    const timeout = parseTimeout((headers["connect-timeout-ms"] as string | undefined) ?? null, Number.MAX_SAFE_INTEGER);
    if (timeout.error) {
      respond(stream, errorAnswer(timeout.error, undefined, opts.logger, path));
      return true;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) {
        respond(stream, errorAnswer(new ConnectError(`message larger than ${MAX_REQUEST_BYTES} bytes`, Code.ResourceExhausted), undefined, opts.logger, path));
        return;
      }
      chunks.push(chunk);
    });
    stream.on("end", () => {
      if (stream.headersSent || stream.destroyed) return;
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      // The client going away ends the handler's wait too.
      const onClose = (stop: () => void) => {
        stream.once("close", stop);
        return () => stream.off("close", stop);
      };
      void answer(route, body, timeout.timeoutMs, () => fromH2Headers(headers), running, onClose).then((a) => respond(stream, a));
    });
    return true;
  };
}

function respond(stream: http2.ServerHttp2Stream, a: Answer): void {
  if (stream.destroyed || stream.headersSent) return;
  stream.respond({ ...a.headers, ":status": a.status, "content-type": unaryContentType(a.status) });
  stream.end(a.body);
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
  const { method, impl } = route;
  const deadline = timeoutMs === undefined ? undefined : performance.now() + timeoutMs;
  const ctx = new LeanContext(method, headers, undefined, "connect", deadline);
  try {
    let request;
    try {
      request = fromBinary(method.input, body);
    } catch (e) {
      throw new ConnectError("the request message could not be decoded", Code.InvalidArgument, undefined, undefined, e);
    }
    const output = await settle(impl(request, ctx), ctx, timeoutMs, opts.inFlight, onClose);
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
  // Unexpected failures are logged here with their cause; callers only ever see the code.
  if (err.code === Code.Internal || err.code === Code.Unknown) logger.error({ err: err.cause ?? err, rpc: procedure }, "rpc failed");
  const headers: Record<string, string> = {};
  if (ctx?.hasHeaders()) ctx.responseHeader.forEach((v, k) => (headers[k] = v));
  err.metadata.forEach((v, k) => (headers[k] = v));
  return { status: codeToHttpStatus(err.code), headers, body: errorToJsonBytes(err, {}) };
}
