// The distributed deployment's wiring: Connect over HTTP/2 to a service in another process.
//
// Unary calls (all the gateway makes) take a lean path: the Connect protocol's binary unary form
// (POST /<service>/<method>, application/proto, connect-timeout-ms; errors as Connect JSON) is
// written and read straight on an HTTP/2 stream, because connect-node's universal client costs
// more per call than the exchange itself (README.md, Measurements). What is
// protocol stays connect's: its session manager (connect, reconnect, keep-alive pings), its
// error JSON decoding, status-code mapping and trailer handling. Calls made in one turn of the
// event loop are coalesced into one exchange (coalesce.ts), a Connect server stream whose
// results arrive as each call is done. Streaming calls go through connect-node's own transport
// on the same session. Client interceptors wrap this transport (pipeline.ts withInterceptors).
import http2 from "node:http2";
import net from "node:net";
import { create, fromBinary, isMessage, toBinary, type DescMessage, type DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError, type Transport, type UnaryResponse } from "@connectrpc/connect";
import { encodeEnvelope } from "@connectrpc/connect/protocol";
import { codeFromHttpStatus, endStreamFromJson, errorFromJsonBytes, trailerDemux } from "@connectrpc/connect/protocol-connect";
import { createConnectTransport, Http2SessionManager } from "@connectrpc/connect-node";
import { StreamResponseSchema } from "@permits/proto/transport/v1/transport";
import { createCoalescer, type Call, type Exchanged, type PostExchange } from "./coalesce.js";
import { END_STREAM_FLAG, EnvelopeReader } from "../wire/envelope.js";
import { fromH2Headers } from "../wire/h2-headers.js";
import { CONNECTION_WINDOW_BYTES, STREAM_WINDOW_BYTES } from "../wire/limits.js";
import { COALESCED_PATH, STREAM_PROTO } from "../server/lean-unary.js";
import { sharedPartsDecoder } from "../wire/shared-decode.js";

export interface H2TransportOptions {
  baseUrl: string;
  /** Deadline of a call that sets none itself. */
  defaultTimeoutMs?: number;
  /** Keep-alive PING interval of the session. */
  pingIntervalMs?: number;
  /** Node's per-session buffer limit, in MB (many large answers share one session). */
  maxSessionMemory?: number;
}

const PROTO = "application/proto";
/** Largest single result read from a coalesced exchange. */
const MAX_RESULT_BYTES = 64 * 1024 * 1024;

export function createH2Transport(opts: H2TransportOptions): Transport {
  const base = new URL(opts.baseUrl);
  const prefix = base.pathname.replace(/\/+$/, "");
  const manager = new Http2SessionManager(base, { pingIntervalMs: opts.pingIntervalMs }, {
    maxSessionMemory: opts.maxSessionMemory,
    settings: { initialWindowSize: STREAM_WINDOW_BYTES },
    // Small request frames must not wait on Nagle's algorithm for the previous frame's ACK.
    createConnection: (authority: URL) => net.connect({ host: authority.hostname, port: Number(authority.port || 80), noDelay: true }),
  });
  const streaming = createConnectTransport({ baseUrl: opts.baseUrl, httpVersion: "2", useBinaryFormat: true, acceptCompression: [], sessionManager: manager, defaultTimeoutMs: opts.defaultTimeoutMs });
  const procedures = new WeakMap<DescMethod, string>();
  const procedureOf = (m: DescMethod) => {
    let p = procedures.get(m);
    if (p === undefined) {
      p = `/${m.parent.typeName}/${m.name}`;
      procedures.set(m, p);
    }
    return p;
  };

  /** A POST stream on the session, which is prepared once (adopt). */
  const open = async (path: string, headers: http2.OutgoingHttpHeaders): Promise<http2.ClientHttp2Stream> => {
    let stream: http2.ClientHttp2Stream;
    try {
      stream = await manager.request("POST", prefix + path, headers, {});
    } catch (e) {
      throw unreachable(e);
    }
    adopt(stream.session);
    return stream;
  };

  /** One call on a stream of its own. */
  const post = async (call: Call): Promise<Exchanged> => {
    const headers: http2.OutgoingHttpHeaders = { ...call.headers, "content-type": PROTO, "connect-protocol-version": "1" };
    return unrefused(call.deadline, async (deadline) => {
      if (deadline !== undefined) headers["connect-timeout-ms"] = String(deadline);
      const stream = await open(call.procedure, headers);
      return exchange(manager, stream, call.message, call.signal, deadline);
    });
  };
  /** Several calls on one stream; each result is handed on as it arrives. */
  const postExchange: PostExchange = (message, deadline, onResult) =>
    unrefused(deadline, async (remaining) => {
      const stream = await open(COALESCED_PATH, { "content-type": STREAM_PROTO, "connect-protocol-version": "1" });
      const reader = new EnvelopeReader(MAX_RESULT_BYTES);
      let ended = false;
      let error: ConnectError | undefined;
      const readResults = (chunk: Buffer) => {
        for (const envelope of reader.push(chunk)) {
          if (envelope.flags & END_STREAM_FLAG) {
            ended = true;
            error = endStreamFromJson(envelope.data).error;
          } else {
            const r = fromBinary(StreamResponseSchema, envelope.data);
            if (r.result) onResult(r.index, r.result);
          }
        }
      };
      const got = await exchange(manager, stream, encodeEnvelope(0, message), undefined, remaining, readResults);
      if (got.status === 200 && !ended) error = new ConnectError("the coalesced exchange ended without its end message", Code.Unavailable);
      return { status: got.status, responseHeaders: got.responseHeaders, bytes: got.bytes, error };
    });
  // Calls made in one turn of the event loop travel in one exchange (coalesce.ts).
  const coalesced = createCoalescer(post, postExchange);
  // Answers repeat the services' large parts: each is decoded once (shared-decode.ts).
  const decode = sharedPartsDecoder();

  return {
    async unary(method, signal, timeoutMs, header, input) {
      const m = method as DescMethod & { input: DescMessage; output: DescMessage };
      const message = toBinary(m.input, isMessage(input, m.input) ? input : create(m.input, input as never));
      if (signal?.aborted) throw ConnectError.from(signal.reason, Code.Canceled);
      let headers: Record<string, string> | undefined;
      if (header !== undefined) {
        headers = {};
        // Client interceptors hand on web Headers already; copying them through another costs per call.
        (header instanceof Headers ? header : new Headers(header)).forEach((v, k) => (headers![k] = v));
      }
      const call: Call = { procedure: procedureOf(m), message, deadline: timeoutMs ?? opts.defaultTimeoutMs, headers, signal };
      return toUnaryResponse(m, await coalesced(call), decode) as never;
    },
    stream: (...args) => streaming.stream(...args),
  };
}

/** Attempts of a call whose stream the service refused unprocessed, before it fails. */
const REFUSED_ATTEMPTS = 3;

/**
 * Marks the error of a stream the service refused without processing it (RST_STREAM
 * REFUSED_STREAM). A property, not a subclass: ConnectError's `instanceof` accepts any ConnectError.
 */
const REFUSED = Symbol("refused stream");

function refusedStream(): ConnectError {
  return Object.assign(new ConnectError("the service refused the stream unprocessed", Code.Unavailable), { [REFUSED]: true });
}

/**
 * Sends again, on a new stream, a call the service refused unprocessed: HTTP/2 says such a
 * stream may be retried safely (RFC 9113, 8.7). It happens when a service retires a session
 * (MAX_CONNECTION_AGE_MS, shutdown) while a call is on its way. Each attempt gets what is left
 * of the deadline.
 */
async function unrefused<T>(deadline: number | undefined, attempt: (remaining: number | undefined) => Promise<T>): Promise<T> {
  const end = deadline === undefined ? undefined : performance.now() + deadline;
  for (let n = 1; ; n++) {
    try {
      return await attempt(end === undefined ? undefined : Math.max(1, Math.round(end - performance.now())));
    } catch (e) {
      if ((e as { [REFUSED]?: boolean })[REFUSED] !== true || n >= REFUSED_ATTEMPTS) throw e;
    }
  }
}

/** A call's answer as Connect's client gives it: the message, or the ConnectError the service sent. */
function toUnaryResponse(m: DescMethod & { input: DescMessage; output: DescMessage }, { status, responseHeaders, bytes }: Exchanged, decode: typeof fromBinary): UnaryResponse<DescMessage, DescMessage> {
  if (status !== 200) {
    // A Connect error: JSON with the code, message and details; the status code is the fallback.
    const metadata = fromH2Headers(responseHeaders);
    throw errorFromJsonBytes(bytes, metadata, new ConnectError(`HTTP ${status}`, codeFromHttpStatus(status), metadata));
  }
  const type = responseHeaders["content-type"];
  if (typeof type !== "string" || !type.startsWith(PROTO)) {
    throw new ConnectError(`unsupported content type ${type}`, Code.Internal, fromH2Headers(responseHeaders));
  }
  const message = decode(m.output, bytes);
  // Web Headers are costly to build: only for a caller that reads them.
  let demuxed: [Headers, Headers] | undefined;
  const parts = () => (demuxed ??= trailerDemux(fromH2Headers(responseHeaders)));
  return {
    stream: false,
    service: m.parent,
    method: m,
    get header() {
      return parts()[0];
    },
    get trailer() {
      return parts()[1];
    },
    message,
  } as UnaryResponse<DescMessage, DescMessage>;
}

/**
 * Sends the request body and reads the whole answer, within the deadline and the caller's signal.
 * A 200 answer's chunks go to `onChunk` instead of the returned bytes when it is given.
 */
function exchange(manager: Http2SessionManager, stream: http2.ClientHttp2Stream, body: Uint8Array, signal: AbortSignal | undefined, deadline: number | undefined, onChunk?: (chunk: Buffer) => void): Promise<Exchanged> {
  return new Promise<Exchanged>((resolve, reject) => {
    let status = 0;
    let responseHeaders: http2.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    let settled = false;
    const timer = deadline !== undefined ? setTimeout(() => fail(new ConnectError("the operation timed out", Code.DeadlineExceeded)), deadline) : undefined;
    const onAbort = () => fail(ConnectError.from(signal!.reason, Code.Canceled));
    signal?.addEventListener("abort", onAbort, { once: true });
    const done = () => {
      settled = true;
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    };
    function fail(err: ConnectError) {
      if (settled) return;
      done();
      if (!stream.closed) stream.close(http2.constants.NGHTTP2_CANCEL);
      reject(err);
    }
    stream.on("response", (h) => {
      status = Number(h[":status"]);
      responseHeaders = h;
    });
    stream.on("data", (chunk: Buffer) => {
      manager.notifyResponseByteRead(stream);
      if (onChunk === undefined || status !== 200) return void chunks.push(chunk);
      try {
        onChunk(chunk);
      } catch (e) {
        fail(new ConnectError("the answer could not be read", Code.Internal, undefined, undefined, e));
      }
    });
    stream.on("end", () => {
      if (settled) return;
      // Ended with no answer at all: the service went away (killed) before it answered.
      if (status === 0) return fail(new ConnectError("the service went away before it answered", Code.Unavailable));
      done();
      resolve({ status, responseHeaders, bytes: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks) });
    });
    const refused = () => status === 0 && stream.rstCode === http2.constants.NGHTTP2_REFUSED_STREAM;
    stream.on("error", (e) => fail(refused() ? refusedStream() : unreachable(e)));
    stream.on("close", () => {
      // Closed without a complete answer: reset by the peer, or the session went away.
      if (!settled) fail(refused() ? refusedStream() : new ConnectError(`stream closed before the answer was complete (code ${stream.rstCode})`, Code.Unavailable));
    });
    stream.end(body);
  });
}

const adopted = new WeakSet<http2.Http2Session>();
/**
 * Once per session: the connection's receive window (the settings above only set each stream's),
 * and a guard against an uncaught session error.
 */
function adopt(session: http2.Http2Session | undefined): void {
  if (session === undefined || adopted.has(session)) return;
  adopted.add(session);
  session.setLocalWindowSize(CONNECTION_WINDOW_BYTES);
  // connect-node's session manager destroys an idle session that receives GOAWAY with an error,
  // and a call arriving in the same tick can make it drop its own error listener before that
  // error is emitted: with no listener, the process would crash. Its state machine still sees
  // the session close; this listener only keeps the error from being uncaught.
  session.on("error", () => {});
}

/**
 * The service could not be reached or the exchange broke off: always Unavailable (retryable),
 * never the service's verdict. connect-node's
 * session manager hands on a dead session's own error, coded by the Node error that killed it (a
 * reset is Aborted, most others Internal), to calls that race its reconnection; a caller must see
 * an outage, not an internal error.
 */
function unreachable(e: unknown): ConnectError {
  if (e instanceof ConnectError && e.code === Code.Unavailable) return e;
  return new ConnectError("the service could not be reached", Code.Unavailable, undefined, undefined, e);
}
