// Answers Node's HTTP server would otherwise give on its own, bare or not at all: a CONNECT
// request, an Expect header it cannot meet, a connection past a cap, and a client that half-closes
// after its request. Each becomes an answer in the contract's shape, with a request id, in the
// vocabulary of the surface the path names.
import { STATUS_CODES, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import fp from "fastify-plugin";
import { Problem, type Surface } from "./problems.js";
import { requestIdFor } from "./request-id.js";
import { sendProblem } from "./send-problem.js";
import type { SurfaceOfPath } from "./problems.js";

/**
 * The socket edges on the app's server: connection caps, CONNECT, Expect, half-closing clients,
 * a missing Host, and the drain of kept-alive connections on close. Registered after the draining
 * plugin, so that its preClose (which starts the 503s) runs before this one waits.
 */
export const socketEdges = fp<{ total: number; perAddress: number; drainMs: number; surfaceOfPath: SurfaceOfPath }>(
  async (app, { total, perAddress, drainMs, surfaceOfPath }) => {
    const connections = limitConnections(app.server, total, perAddress, () => surfaceOfPath);
    answerServerEdges(app.server, () => surfaceOfPath);
    // Requests already on their way over kept-alive connections get the drain's 503, not a closed socket.
    app.addHook("preClose", (done) =>
      void connections.drain(drainMs).then((cut) => {
        if (cut > 0) app.log.warn({ cut }, "drain deadline passed: connections with no complete request cut");
        done();
      }),
    );
    // Node's own answer to a request without Host is a bare 400 (the server is built with
    // requireHostHeader off so that the request reaches this hook).
    app.addHook("onRequest", (req, reply, done) => {
      if (req.headers.host !== undefined || req.raw.httpVersionMinor !== 1 || req.raw.httpVersionMajor !== 1) return done();
      reply.header("access-control-allow-origin", "*");
      void sendProblem(req, reply, new Problem("invalid_request", "The request has no Host header, which HTTP/1.1 requires."), surfaceOfPath(req.url));
    });
  },
  { name: "socket-edges", dependencies: ["draining"] },
);

/** How much of a refused request is read and dropped so its sender can read the answer. */
export const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;
export const DRAIN_TIMEOUT_MS = 5_000;

/** A Problem answer no Fastify reply writes: its status, headers (closing the connection) and body. */
function problemAnswer(p: Problem, surface: Surface, requestId: string): { status: number; headers: Record<string, string | number>; body: string } {
  const body = JSON.stringify(p.body(surface, requestId));
  const headers: Record<string, string | number> = {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": Buffer.byteLength(body),
    "X-Request-Id": requestId,
    "Access-Control-Allow-Origin": "*",
    ...p.extra.headers,
    Connection: "close",
  };
  return { status: p.status(surface), headers, body };
}

/** The full HTTP/1.1 text of a Problem answer, for a socket no Fastify reply owns. */
export function rawAnswer(p: Problem, surface: Surface, requestId: string): string {
  const { status, headers, body } = problemAnswer(p, surface, requestId);
  let head = `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n`;
  for (const [k, v] of Object.entries(headers)) head += `${k}: ${v}\r\n`;
  return `${head}\r\n${body}`;
}

/**
 * Sends the answer, then reads and drops what the client still sends (up to a bound) before the
 * connection closes: closing with unread bytes makes the kernel reset the connection, and a
 * client still sending its body would lose the answer.
 */
export function endAfterDraining(socket: Socket, answer: string): void {
  let seen = 0;
  const timer = setTimeout(() => socket.destroy(), DRAIN_TIMEOUT_MS);
  timer.unref();
  socket.on("data", (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > DRAIN_LIMIT_BYTES) socket.destroy();
  });
  socket.once("close", () => clearTimeout(timer));
  socket.resume();
  socket.end(answer);
}

/** The response being written on a connection: Node keeps it as socket._httpMessage. */
function responseInFlight(socket: Socket): ServerResponse | undefined {
  return (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;
}

/**
 * Writes `answer` once the response in flight on this connection (a pipelined request read before
 * the refused bytes) has been written, so the client gets its answers in order.
 */
export function answerAfterInFlight(socket: Socket, answer: () => void): void {
  const inFlight = responseInFlight(socket);
  if (!inFlight || inFlight.writableFinished) return answer();
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    if (socket.destroyed) return;
    answer();
  };
  inFlight.once("finish", once);
  inFlight.once("close", once);
}

/** The server-level events Node answers by itself unless the application listens. */
export function answerServerEdges(server: HttpServer, surfaceOf: () => SurfaceOfPath): void {
  // A client that half-closes after a complete request still gets its answer (Node otherwise
  // aborts the request and ends the connection when the client's FIN arrives).
  (server as HttpServer & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;

  // CONNECT (a tunnel request): no route serves it; answer 405 instead of closing silently.
  server.on("connect", (req: IncomingMessage, socket: Socket) => {
    const p = new Problem("method_not_allowed", "CONNECT is not served: this is an API, not a proxy.", { headers: { allow: "GET, POST" } });
    // After the answer to a request pipelined before it on this connection.
    answerAfterInFlight(socket, () => endAfterDraining(socket, rawAnswer(p, surfaceOf()(req.url ?? "/"), requestIdFor(req))));
  });

  // An Expect other than 100-continue cannot be met: the contract's 417, not Node's empty one.
  server.on("checkExpectation", (req: IncomingMessage, res: ServerResponse) => {
    const p = new Problem("expectation_failed", "The Expect header asks for something this server does not do; send the request without it (or with Expect: 100-continue).");
    const { status, headers, body } = problemAnswer(p, surfaceOf()(req.url ?? "/"), requestIdFor(req));
    res.writeHead(status, headers);
    // The whole answer goes out now (a client waiting before it sends its body reads it); the
    // connection closes once a body sent anyway is read and dropped, so its sender is not reset.
    res.write(body);
    void discardBody(req, DRAIN_LIMIT_BYTES, DRAIN_TIMEOUT_MS).then(() => res.end());
  });

  // 100 Continue only when this request is the one being answered: Node would otherwise write it
  // ahead of the answer to a pipelined request before it, out of order.
  server.on("checkContinue", (req: IncomingMessage, res: ServerResponse) => {
    if (res.socket) res.writeContinue();
    server.emit("request", req, res);
  });
}

/**
 * Caps open connections: `total` in all, and `perAddress` for one client address (0: no cap, for
 * a gateway behind a proxy whose address all connections share). A connection over a cap gets one
 * answer before it closes, 503 when the server is full and 429 when its address holds too many,
 * each with Retry-After; its bytes never reach the HTTP parser. Call once the server exists.
 */
export function limitConnections(server: HttpServer, total: number, perAddress: number, surfaceOf: () => SurfaceOfPath): Connections {
  const open = new Map<string, number>();
  const admitted = new Set<Socket>();
  let all = 0;
  // The HTTP server's own listeners run only for admitted connections.
  const httpListeners = server.listeners("connection") as ((socket: Socket) => void)[];
  server.removeAllListeners("connection");
  server.on("connection", (socket: Socket) => {
    const address = socket.remoteAddress ?? "";
    const n = (open.get(address) ?? 0) + 1;
    if (all >= total) {
      return refuse(socket, surfaceOf, new Problem("internal", "The server holds as many connections as it can. Retry shortly.", { status: 503, headers: { "retry-after": "1" } }));
    }
    if (perAddress > 0 && n > perAddress) {
      return refuse(socket, surfaceOf, new Problem("too_many_connections", `This address holds more than ${perAddress} open connections. Close some, or retry after Retry-After.`, { headers: { "retry-after": "1" } }));
    }
    all++;
    open.set(address, n);
    admitted.add(socket);
    socket.once("close", () => {
      all--;
      admitted.delete(socket);
      const left = (open.get(address) ?? 1) - 1;
      if (left === 0) open.delete(address);
      else open.set(address, left);
    });
    for (const listener of httpListeners) listener.call(server, socket);
  });
  return {
    drain: (deadlineMs) =>
      drainConnections(admitted, deadlineMs).then(() => {
        // server.close() stops Node's head and request timeouts, so a connection still waiting
        // on its client at the deadline (a head or body that never completes) would hold the
        // close, and the process, for ever. Only answers being written are waited for.
        const cut = [...admitted].filter((socket) => !answering(socket));
        for (const socket of cut) socket.destroy();
        return cut.length;
      }),
  };
}

export interface Connections {
  /**
   * Resolves once every admitted connection has closed, or at the deadline, with the number of
   * connections then cut (open, with no complete request to answer). A request arriving on a
   * connection meanwhile gets the drain's 503 and `Connection: close`. An idle connection is not
   * ended: Node's server told its client how long it stays open (`Keep-Alive: timeout=`, from
   * KEEP_ALIVE_TIMEOUT_MS), and a client may send a request on it until then, so ending it sooner
   * races that request (the client sees the connection closed under it and cannot know whether
   * it was read). It closes as outside a drain, by its client or by Node's keep-alive timeout.
   */
  drain(deadlineMs: number): Promise<number>;
}

/** A connection whose request has fully arrived and whose answer is not yet written out. */
function answering(socket: Socket): boolean {
  return responseInFlight(socket)?.req.complete === true;
}

const DRAIN_POLL_MS = 50;

function drainConnections(admitted: Set<Socket>, deadlineMs: number): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  return new Promise((resolve) => {
    const poll = () => {
      if (admitted.size === 0 || Date.now() >= deadline) return resolve();
      setTimeout(poll, DRAIN_POLL_MS).unref();
    };
    poll();
  });
}

/** How long a refused connection's first bytes are awaited to answer in its path's vocabulary. */
const FIRST_PACKET_WAIT_MS = 100;

/** One answer on a connection over a cap, then the close; its bytes never reach the HTTP parser. */
function refuse(socket: Socket, surfaceOf: () => SurfaceOfPath, p: Problem): void {
  socket.on("error", () => socket.destroy());
  let answered = false;
  const answer = (first?: Buffer) => {
    if (answered) return;
    answered = true;
    clearTimeout(timer);
    endAfterDraining(socket, rawAnswer(p, surfaceOf()(pathOfRawRequest(first, undefined)), requestIdFor({ headers: {} } as IncomingMessage)));
  };
  const timer = setTimeout(() => answer(), FIRST_PACKET_WAIT_MS);
  timer.unref();
  socket.once("data", (chunk: Buffer) => answer(chunk));
}

/**
 * The path of the request the parser refused: the last request line at or before the byte where
 * it stopped (a packet may hold pipelined requests before it); "/" when none can be read.
 */
export function pathOfRawRequest(raw: unknown, bytesParsed: number | undefined): string {
  if (!Buffer.isBuffer(raw)) return "/";
  const text = raw.subarray(0, 64 * 1024).toString("latin1");
  let path = "/";
  for (const m of text.matchAll(/(?:^|\n)[!#$%&'*+.^_`|~0-9A-Za-z-]+ (\/[^ \r\n]*)/g)) {
    if (bytesParsed !== undefined && m.index > bytesParsed) break;
    path = m[1];
  }
  return path;
}

/** Reads a request's remaining body and drops it; false if it ran past `limit` bytes or `timeoutMs`. */
export function discardBody(raw: IncomingMessage, limit: number, timeoutMs: number): Promise<boolean> {
  if (raw.complete || raw.destroyed) return Promise.resolve(true);
  return new Promise((resolve) => {
    let seen = 0;
    const finish = (ok: boolean) => {
      clearTimeout(timer);
      raw.off("data", onData);
      raw.off("end", onEnd);
      raw.off("error", onEnd);
      if (!ok) raw.pause();
      resolve(ok);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > limit) finish(false);
    };
    const onEnd = () => finish(true);
    const timer = setTimeout(() => finish(false), timeoutMs);
    raw.on("data", onData);
    raw.on("end", onEnd);
    raw.on("error", onEnd);
    raw.resume();
  });
}
