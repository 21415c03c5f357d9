import type http2 from "node:http2";

/** HTTP/2 headers as web Headers, without the pseudo-headers (":status", ":path", ...). */
export function fromH2Headers(h: http2.IncomingHttpHeaders): Headers {
  const out = new Headers();
  for (const k of Object.keys(h)) {
    if (k.startsWith(":")) continue;
    const v = h[k];
    if (Array.isArray(v)) for (const x of v) out.append(k, x);
    else if (v !== undefined) out.set(k, String(v));
  }
  return out;
}

/** The content type of a Connect unary answer in binary form: the message, or the error as JSON. */
export function unaryContentType(status: number): string {
  return status === 200 ? "application/proto" : "application/json";
}

// HTTP/2 flow-control windows of both ends. With the protocol's default of 64 KB, an answer of a
// few hundred KB (a batch of NWP determinations) waits for a window update from the receiver's
// event loop every 64 KB, and a busy gateway's loop turns take milliseconds.
export const STREAM_WINDOW_BYTES = 8 * 1024 * 1024;
export const CONNECTION_WINDOW_BYTES = 32 * 1024 * 1024;
