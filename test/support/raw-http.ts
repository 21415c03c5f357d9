// Sends bytes to a server exactly as given and reads the first answer. fetch and node:http refuse
// to send what the hostile-input suites must send (CR/LF in a header, bad percent-encoding, a
// non-ASCII path byte, both Content-Length and Transfer-Encoding), so these go over a plain socket.
import net from "node:net";

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Why no answer came: the server closed or reset without one, or said nothing in time. */
export interface NoAnswer {
  failure: "closed without an answer" | "reset" | "timeout";
  detail: string;
}

/**
 * The first response on a fresh connection, framed by Content-Length or chunked encoding (or the
 * close); 1xx interim answers are skipped. `head`: the request was HEAD, so the answer has no body.
 */
export function sendRaw(port: number, request: string | Buffer, opts: { timeoutMs?: number; head?: boolean; skip?: number } = {}): Promise<RawAnswer | NoAnswer> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    let buffered = Buffer.alloc(0);
    let settled = false;
    const settle = (v: RawAnswer | NoAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(v);
    };
    const timer = setTimeout(() => settle({ failure: "timeout", detail: `no complete answer in ${opts.timeoutMs ?? 5000} ms` }), opts.timeoutMs ?? 5000);
    socket.on("data", (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      const answer = parseAfter(buffered, opts.head === true, false, opts.skip ?? 0);
      if (answer) settle(answer);
    });
    socket.on("error", (e: NodeJS.ErrnoException) => {
      // A server may answer and then reset a connection whose request it did not read to the end.
      const answer = parseAfter(buffered, opts.head === true, true, opts.skip ?? 0);
      settle(answer ?? { failure: "reset", detail: e.code ?? e.message });
    });
    socket.on("close", () => settle(parseAfter(buffered, opts.head === true, true, opts.skip ?? 0) ?? { failure: "closed without an answer", detail: `${buffered.length} bytes received` }));
    socket.write(request);
  });
}

export function isAnswer(a: RawAnswer | NoAnswer): a is RawAnswer {
  return "status" in a;
}

/**
 * The response after `skip` complete ones (pipelined requests' answers, which carry a
 * Content-Length or chunked body), or undefined while more is needed.
 */
function parseAfter(bytes: Buffer, head: boolean, closed: boolean, skip: number): RawAnswer | undefined {
  let at = 0;
  for (let i = 0; i < skip; i++) {
    const first = parseResponse(bytes.subarray(at), false, false);
    if (!first) return closed ? parseResponse(bytes.subarray(at), false, true) : undefined;
    at += first.length;
  }
  return parseResponse(bytes.subarray(at), head, closed);
}

/** One complete response at the start of `bytes` (with its length in bytes), or undefined while more is needed. */
function parseResponse(bytes: Buffer, head: boolean, closed: boolean): (RawAnswer & { length: number }) | undefined {
  let start = 0;
  for (;;) {
    const end = bytes.indexOf("\r\n\r\n", start);
    if (end < 0) return undefined;
    const [statusLine, ...lines] = bytes.subarray(start, end).toString("latin1").split("\r\n");
    const status = Number(statusLine.split(" ")[1]);
    const headers: Record<string, string> = {};
    for (const l of lines) {
      const i = l.indexOf(":");
      headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
    }
    const bodyStart = end + 4;
    if (status >= 100 && status < 200) {
      start = bodyStart;
      continue;
    }
    const rest = bytes.subarray(bodyStart);
    if (head || status === 204 || status === 304) return { status, headers, body: "", length: bodyStart };
    if (headers["content-length"] !== undefined) {
      const length = Number(headers["content-length"]);
      return rest.length >= length ? { status, headers, body: rest.subarray(0, length).toString("utf8"), length: bodyStart + length } : undefined;
    }
    if (/chunked/i.test(headers["transfer-encoding"] ?? "")) {
      const body = dechunk(rest);
      return body === undefined ? undefined : { status, headers, body: body.text, length: bodyStart + body.length };
    }
    return closed ? { status, headers, body: rest.toString("utf8"), length: bytes.length } : undefined;
  }
}

function dechunk(bytes: Buffer): { text: string; length: number } | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf("\r\n", at);
    if (lineEnd < 0) return undefined;
    const size = parseInt(bytes.subarray(at, lineEnd).toString("latin1"), 16);
    if (size === 0) return { text: Buffer.concat(parts).toString("utf8"), length: lineEnd + 4 };
    if (bytes.length < lineEnd + 2 + size + 2) return undefined;
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}
