// One chain of Connect interceptors for every path a unary call can take. connect-node's adapter
// and client transport run interceptors themselves; the paths built here for speed (the lean
// unary path, each call of a coalesced exchange, the direct transport, the HTTP/2 client) run
// the same `Interceptor`s through these two functions, so auth, tracing and metrics are written
// once, as Connect interceptors.
//
// The request objects are built lazily: headers, signals and context values are made only if an
// interceptor (or the handler) reads them, because eager ones cost a quarter of an embedded
// request's CPU (README.md, Measurements).
import { create, isMessage, type DescMessage, type DescMethod } from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  createContextValues,
  type ContextValues,
  type HandlerContext,
  type Interceptor,
  type Transport,
  type UnaryRequest,
  type UnaryResponse,
} from "@connectrpc/connect";
import type { Logger } from "@permits/runtime";

type UnaryMethod = DescMethod & { input: DescMessage; output: DescMessage };
type AnyUnaryImpl = (req: unknown, ctx: HandlerContext) => unknown;
type AnyUnaryFn = (req: UnaryRequest) => Promise<UnaryResponse>;

/** A unary handler with the chain around it: resolves to the output message, or throws a ConnectError. */
export type ChainedHandler = (input: unknown, ctx: HandlerContext) => unknown;

const CONTEXT = Symbol("handler context");
const CALL = Symbol("client call");

/** Connect's own order: the first interceptor of the list is the outermost. */
function chain(inner: AnyUnaryFn, interceptors: readonly Interceptor[]): AnyUnaryFn {
  return interceptors.reduceRight((next, i) => i(next as never) as unknown as AnyUnaryFn, inner);
}

/**
 * The service side: `impl` behind `interceptors`, built once per method. Each call's request
 * reads its headers, signal and values from the call's context; an interceptor that passes on a
 * request of its own (new headers, say) gives the handler a context that shows them.
 */
export function chainHandler(method: DescMethod, impl: AnyUnaryImpl, interceptors: readonly Interceptor[]): ChainedHandler {
  // No interceptors, no wrapping: the handler as it is.
  if (interceptors.length === 0) return impl;
  const m = method as UnaryMethod;
  const inner: AnyUnaryFn = async (req) => {
    const ctx = (req as unknown as Record<symbol, HandlerContext>)[CONTEXT];
    const own = isAsMade(req) ? ctx : contextOf(req, ctx);
    const output = await impl(req.message, own);
    const message = isMessage(output, m.output) ? output : create(m.output, output as never);
    return responseOf(m, message, ctx);
  };
  const run = chain(inner, interceptors);
  return async (input, ctx) => {
    const res = await run(requestOf(m, input, ctx));
    if (!isAsMade(res)) {
      // An interceptor answered with headers of its own: they are the call's headers now.
      copyHeaders(res.header, ctx.responseHeader);
      copyHeaders(res.trailer, ctx.responseTrailer);
    }
    return res.message;
  };
}

function requestOf(method: UnaryMethod, message: unknown, ctx: HandlerContext): UnaryRequest {
  return {
    stream: false,
    service: method.parent,
    method,
    requestMethod: ctx.requestMethod,
    url: ctx.url,
    message,
    get signal() {
      return ctx.signal;
    },
    get header() {
      return ctx.requestHeader;
    },
    get contextValues() {
      return ctx.values;
    },
    [CONTEXT]: ctx,
  } as unknown as UnaryRequest;
}

/** The call's context as an interceptor's own request shows it. */
function contextOf(req: UnaryRequest, ctx: HandlerContext): HandlerContext {
  return Object.create(ctx, {
    requestHeader: { value: req.header },
    signal: { value: req.signal },
    values: { value: req.contextValues },
  }) as HandlerContext;
}

function responseOf(method: UnaryMethod, message: unknown, ctx: HandlerContext): UnaryResponse {
  return {
    stream: false,
    service: method.parent,
    method,
    message,
    get header() {
      return ctx.responseHeader;
    },
    get trailer() {
      return ctx.responseTrailer;
    },
  } as unknown as UnaryResponse;
}

/**
 * Whether a request or response is the lazy one made here, not one an interceptor made of its
 * own (a spread copy holds values where this one holds getters).
 */
function isAsMade(r: UnaryRequest | UnaryResponse): boolean {
  return Object.getOwnPropertyDescriptor(r, "header")?.get !== undefined;
}

function copyHeaders(from: Headers, to: Headers): void {
  if (from === to) return;
  from.forEach((v, k) => to.set(k, v));
}

interface ClientCall {
  timeoutMs: number | undefined;
  header: HeadersInit | undefined;
  signal: AbortSignal | undefined;
  built?: Headers;
}

/**
 * The caller side: a transport whose unary calls run `interceptors` first, on whatever transport
 * is underneath (direct, lean HTTP/2, connect-node). Streaming calls pass through unchanged.
 */
export function withInterceptors(transport: Transport, interceptors: readonly Interceptor[]): Transport {
  if (interceptors.length === 0) return transport;
  const inner: AnyUnaryFn = (req) => {
    const call = (req as unknown as Record<symbol, ClientCall>)[CALL];
    // The request as made, unless an interceptor passed on one of its own.
    const same = isAsMade(req);
    const header = same ? (call.built ?? call.header) : req.header;
    const signal = same ? call.signal : req.signal;
    return transport.unary(req.method as never, signal, call.timeoutMs, header, req.message as never, req.contextValues) as Promise<UnaryResponse>;
  };
  const run = chain(inner, interceptors);
  return {
    unary(method, signal, timeoutMs, header, input, contextValues) {
      const call: ClientCall = { timeoutMs, header, signal };
      let values: ContextValues | undefined = contextValues;
      let ownSignal: AbortSignal | undefined;
      const request = {
        stream: false,
        service: method.parent,
        method,
        requestMethod: "POST",
        url: `/${method.parent.typeName}/${method.name}`,
        message: input,
        get header() {
          return (call.built ??= new Headers(call.header));
        },
        get signal() {
          return signal ?? (ownSignal ??= new AbortController().signal);
        },
        get contextValues() {
          return (values ??= createContextValues());
        },
        [CALL]: call,
      } as unknown as UnaryRequest;
      return run(request) as never;
    },
    stream: (...args) => transport.stream(...args),
  };
}

/**
 * Hides the text of unexpected failures from callers and logs it with its cause: what a handler
 * throws that is not a ConnectError becomes Internal with a generic message. Connect's own
 * handlers (connect-node's adapter, connect-fastify) run it first in their chain; the lean path
 * and the direct transport do the same themselves, so a chain with no interceptors costs nothing.
 */
export function internalErrors(logger: Logger): Interceptor {
  return (next) => async (req) => {
    try {
      return await next(req);
    } catch (e) {
      const err = e instanceof ConnectError ? e : new ConnectError("internal error", Code.Internal, undefined, undefined, e);
      if (err.code === Code.Internal || err.code === Code.Unknown) {
        logger.error({ err: err.cause ?? err, rpc: `${req.service.typeName}/${req.method.name}` }, "rpc failed");
      }
      throw err;
    }
  };
}
