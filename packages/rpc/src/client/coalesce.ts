// Coalescing of unary calls to one service (permits.transport.v1.CoalescedService/Stream). Calls made
// in one turn of the event loop are held until the turn ends (setImmediate runs after every
// request read in that turn); then a lone call goes out on a stream of its own, and two or more
// go out together in one exchange. Node's HTTP/2 costs more per stream than these calls cost
// themselves (README.md, Measurements), and a loaded gateway has
// many authenticate, decide and determine calls ready at once. An idle gateway adds nothing: its
// lone calls go as before. The service answers each call of an exchange as soon as it is done,
// so a slow call holds up no other. A service that does not serve the coalesced call (an older
// version during a rolling deploy) is remembered, and calls go one by one again.
import type http2 from "node:http2";
import { create, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { StreamRequestSchema, type UnaryResult } from "@permits/proto/transport/v1/transport";
import { unaryContentType } from "../wire/h2-headers.js";
import { MAX_COALESCED_BYTES, MAX_COALESCED_CALLS } from "../wire/limits.js";

/** One unary call, encoded, ready to send. */
export interface Call {
  /** "/<package>.<Service>/<Method>" */
  procedure: string;
  message: Uint8Array;
  deadline: number | undefined;
  headers: Record<string, string> | undefined;
  signal: AbortSignal | undefined;
}

/** What came back for one call: the HTTP status, the response headers and the body. */
export interface Exchanged {
  status: number;
  responseHeaders: http2.IncomingHttpHeaders;
  bytes: Uint8Array;
}

/** How a coalesced exchange ended: its HTTP status and, on 200, the error its end carried, if any. */
export interface ExchangeEnd {
  status: number;
  responseHeaders: http2.IncomingHttpHeaders;
  /** The body of an answer that was not a stream (status other than 200). */
  bytes: Uint8Array;
  error?: ConnectError;
}

/** Sends one exchange; `onResult` is called for each call's result as it arrives. */
export type PostExchange = (message: Uint8Array, deadline: number | undefined, onResult: (index: number, result: UnaryResult) => void) => Promise<ExchangeEnd>;

interface Pending {
  call: Call;
  resolve: (e: Exchanged) => void;
  reject: (err: unknown) => void;
}


/** Returns `call` with the same contract as `post`, coalescing concurrent calls. */
export function createCoalescer(post: (call: Call) => Promise<Exchanged>, postExchange: PostExchange): (call: Call) => Promise<Exchanged> {
  let queue: Pending[] = [];
  let served = true;

  const flush = () => {
    const batch = queue;
    queue = [];
    const live = batch.filter((p) => {
      if (!p.call.signal?.aborted) return true;
      p.reject(ConnectError.from(p.call.signal.reason, Code.Canceled));
      return false;
    });
    if (live.length === 1 || !served) {
      for (const p of live) post(p.call).then(p.resolve, p.reject);
      return;
    }
    // Exchanges are cut at MAX_COALESCED_CALLS calls or MAX_COALESCED_BYTES of messages, within
    // what the service reads in one request (wire/limits.ts).
    let start = 0;
    let bytes = 0;
    for (let i = 0; i < live.length; i++) {
      const size = live[i].call.message.length;
      if (i > start && (i - start === MAX_COALESCED_CALLS || bytes + size > MAX_COALESCED_BYTES)) {
        void together(live.slice(start, i));
        start = i;
        bytes = 0;
      }
      bytes += size;
    }
    void together(live.slice(start));
  };

  const together = async (batch: Pending[]): Promise<void> => {
    if (batch.length === 1) {
      post(batch[0].call).then(batch[0].resolve, batch[0].reject);
      return;
    }
    const message = toBinary(StreamRequestSchema, create(StreamRequestSchema, {
      calls: batch.map(({ call }) => ({ procedure: call.procedure, message: call.message, timeoutMs: call.deadline ?? 0, headers: call.headers ?? {} })),
    }));
    // The exchange lasts as long as the longest deadline; the service ends each call at its own.
    const deadline = batch.some((p) => p.call.deadline === undefined) ? undefined : Math.max(...batch.map((p) => p.call.deadline!));
    const open = new Set(batch);
    let end: ExchangeEnd;
    try {
      end = await postExchange(message, deadline, (index, r) => {
        const p = batch[index];
        if (p === undefined || !open.delete(p)) return;
        // As on a stream of its own.
        p.resolve({ status: r.status, responseHeaders: { ...r.headers, "content-type": unaryContentType(r.status) }, bytes: r.body });
      });
    } catch (e) {
      for (const p of open) p.reject(e);
      return;
    }
    if (end.status === 404 || end.status === 415 || end.status === 501) {
      // Not served there (Connect answers Unimplemented with 404): one by one from now on.
      served = false;
      for (const p of open) post(p.call).then(p.resolve, p.reject);
      return;
    }
    // The exchange itself failed (e.g. the service is shutting down): each call left gets that answer.
    if (end.status !== 200) for (const p of open) p.resolve({ status: end.status, responseHeaders: end.responseHeaders, bytes: end.bytes });
    else for (const p of open) p.reject(end.error ?? new ConnectError("the coalesced answer is missing a result", Code.Internal));
  };

  return (call) =>
    new Promise<Exchanged>((resolve, reject) => {
      if (queue.length === 0) setImmediate(flush);
      const p: Pending = { call, resolve, reject };
      if (call.signal) {
        // An aborted caller is answered at once; a result that arrives later is ignored.
        const onAbort = () => reject(ConnectError.from(call.signal!.reason, Code.Canceled));
        call.signal.addEventListener("abort", onAbort, { once: true });
        p.resolve = (e) => {
          call.signal!.removeEventListener("abort", onAbort);
          resolve(e);
        };
        p.reject = (err) => {
          call.signal!.removeEventListener("abort", onAbort);
          reject(err);
        };
      }
      queue.push(p);
    });
}
