// The embedded deployment's wiring: a Connect Transport that calls a service implementation
// in the same process with a real HandlerContext and no serialisation.
//
// Why not createRouterTransport: it encodes and decodes every message through the Connect
// protocol, several times a whole request's budget (README.md, Measurements). This keeps
// what matters of the RPC contract (ConnectError codes and details, request and response
// headers, deadlines, abort signals) and skips the bytes.
//
// Messages cross by reference: a handler must not mutate its request, and a caller must not
// mutate a response it received. Every service here builds fresh response messages.
import { create, isMessage, type DescMessage, type DescMethod, type DescService } from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  createContextValues,
  createHandlerContext,
  type ContextValues,
  type HandlerContext,
  type Interceptor,
  type ServiceImpl,
  type Transport,
} from "@connectrpc/connect";
import type { Logger } from "@permits/runtime";
import { chainHandler, type ChainedHandler } from "../chain/pipeline.js";

type AnyUnaryImpl = (req: unknown, ctx: HandlerContext) => unknown;

export interface DirectRoute<S extends DescService = DescService> {
  service: S;
  impl: Partial<ServiceImpl<S>>;
}

export function directRoute<S extends DescService>(service: S, impl: Partial<ServiceImpl<S>>): DirectRoute {
  return { service, impl } as unknown as DirectRoute;
}

export interface DirectTransportOptions {
  shutdownSignal?: AbortSignal;
  /** Where unexpected failures of a handler are logged (callers see only Internal). */
  logger?: Logger;
  /** The services' interceptor chain (pipeline.ts), run for each call as a remote host would. */
  interceptors?: readonly Interceptor[];
}

export function createDirectTransport(routes: DirectRoute[], opts: DirectTransportOptions = {}): Transport {
  // Resolve every method to its implementation, behind the chain, once, not per call.
  const impls = new Map<DescMethod, ChainedHandler>();
  for (const { service, impl } of routes) {
    for (const method of service.methods) {
      const fn = (impl as Record<string, unknown>)[method.localName];
      if (typeof fn === "function" && method.methodKind === "unary") impls.set(method, chainHandler(method, fn.bind(impl) as AnyUnaryImpl, opts.interceptors ?? []));
    }
  }

  return {
    async unary(method, signal, timeoutMs, header, input, contextValues) {
      const impl = impls.get(method as DescMethod);
      if (!impl) throw new ConnectError(`${method.parent.typeName}/${method.name} is not implemented`, Code.Unimplemented);
      // A call that nothing can abort (no deadline, no caller signal, no shutdown signal) gets a
      // lean context; otherwise Connect's own createHandlerContext links the signals.
      const cancellable = timeoutMs !== undefined || signal !== undefined || opts.shutdownSignal !== undefined;
      const ctx: HandlerContext & { abort(reason?: unknown): void } = cancellable
        ? createHandlerContext({
            service: method.parent,
            method: method as DescMethod,
            protocolName: "direct",
            requestMethod: "POST",
            url: `/${method.parent.typeName}/${method.name}`,
            timeoutMs,
            shutdownSignal: opts.shutdownSignal,
            requestSignal: signal,
            requestHeader: header,
            contextValues: contextValues ?? createContextValues(),
          })
        : new LeanContext(method as DescMethod, header, contextValues);
      const request = isMessage(input, method.input) ? input : create(method.input, input);
      try {
        if (cancellable) ctx.signal.throwIfAborted();
        const pending = Promise.resolve(impl(request, ctx));
        const output = await (cancellable ? raceAbort(pending, ctx.signal) : pending);
        const message = isMessage(output, method.output as DescMessage)
          ? output
          : create(method.output as DescMessage, output as Record<string, unknown>);
        return {
          stream: false as const,
          service: method.parent,
          method,
          // Getters: response headers cost nothing unless the caller reads them.
          get header() {
            return ctx.responseHeader;
          },
          message,
          get trailer() {
            return ctx.responseTrailer;
          },
        } as never;
      } catch (e) {
        throw toConnectError(e, ctx, opts.logger);
      } finally {
        // A prepared reason: abort() without one builds a DOMException, stack and all, per call.
        ctx.abort(CALL_COMPLETE);
      }
    },
    stream(method) {
      return Promise.reject(
        new ConnectError(`${method.parent.typeName}/${method.name}: streaming is not served in process`, Code.Unimplemented),
      );
    },
  };
}

const CALL_COMPLETE = new ConnectError("the call is complete", Code.Canceled);

/**
 * The context of a call nothing can abort: every part a handler might use (signal, headers,
 * values) is made only when the handler first reads it: built eagerly they were a quarter of an
 * embedded request's CPU (README.md, Measurements).
 */
export class LeanContext implements HandlerContext {
  readonly requestMethod = "POST";
  readonly service: DescService;
  private controller?: AbortController;
  private headers?: { request: Headers; response: Headers; trailer: Headers };
  private contextValues?: ContextValues;

  constructor(
    readonly method: DescMethod,
    /** The request headers, or a function giving them (called only if a handler reads them). */
    private readonly header: HeadersInit | (() => HeadersInit) | undefined,
    values: ContextValues | undefined,
    readonly protocolName = "direct",
    /** When the call must be done by (performance.now() time), if it has a deadline. */
    private readonly deadline?: number,
  ) {
    this.service = method.parent;
    this.contextValues = values;
  }
  get url(): string {
    return `/${this.service.typeName}/${this.method.name}`;
  }
  get signal(): AbortSignal {
    return (this.controller ??= new AbortController()).signal;
  }
  timeoutMs = (): number | undefined => (this.deadline === undefined ? undefined : Math.max(0, this.deadline - performance.now()));
  private allHeaders() {
    const given = typeof this.header === "function" ? this.header() : this.header;
    return (this.headers ??= { request: new Headers(given), response: new Headers(), trailer: new Headers() });
  }
  get requestHeader(): Headers {
    return this.allHeaders().request;
  }
  get responseHeader(): Headers {
    return this.allHeaders().response;
  }
  get responseTrailer(): Headers {
    return this.allHeaders().trailer;
  }
  hasHeaders(): boolean {
    return this.headers !== undefined;
  }
  get values(): ContextValues {
    return (this.contextValues ??= createContextValues());
  }
  abort(reason?: unknown): void {
    this.controller?.abort(reason);
  }
}

function raceAbort<T>(pending: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    pending.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

// What a remote client would see: the handler's ConnectError as is (with its response headers
// merged into the metadata, as the wire would carry them), anything else as Internal without its text.
function toConnectError(e: unknown, ctx: HandlerContext, logger: Logger | undefined): ConnectError {
  if (e instanceof ConnectError) {
    // Only touch the response headers if the handler made them (LeanContext builds them lazily).
    if (ctx instanceof LeanContext && !ctx.hasHeaders()) return e;
    ctx.responseHeader.forEach((v, k) => {
      if (!e.metadata.has(k)) e.metadata.set(k, v);
    });
    return e;
  }
  if (ctx.signal.aborted && ctx.signal.reason instanceof ConnectError) return ctx.signal.reason;
  logger?.error({ err: e, rpc: `${ctx.service.typeName}/${ctx.method.name}` }, "rpc failed");
  return new ConnectError("internal error", Code.Internal, undefined, undefined, e);
}
