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
