// Answers that no route handler writes, in the contract anyway: requests Node's HTTP parser
// refuses (Fastify's clientErrorHandler), URLs Fastify cannot decode (frameworkErrors), and
// requests that arrive while the gateway drains. Each carries a request id and the error
// vocabulary of the surface its path names (the stormwater surface's when it cannot be read).
import { STATUS_CODES } from "node:http";
import type { IncomingMessage } from "node:http";
import type { Server, Socket } from "node:net";
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from "fastify";
import { Problem, type Surface } from "./problems.js";
import { requestIdFor } from "./request-id.js";

/** The surface whose vocabulary a path's answer takes (from the route table, once built). */
export type SurfaceOfPath = (url: string) => Surface;

/** The path of a raw request line, if one can be read ("GET /api/v1/x HTTP/1.1"). */
function pathOfRawRequest(raw: unknown): string {
  const line = Buffer.isBuffer(raw) ? raw.subarray(0, 2048).toString("latin1").split("\r\n", 1)[0] : "";
  const target = line.split(" ")[1] ?? "";
  return target.startsWith("/") ? target : "/";
}

/** Node's parser refused the request: answer in the contract and close the connection. */
export function clientErrorHandler(surfaceOf: () => SurfaceOfPath) {
  // Node's parser error: its code (HPE_*), and the bytes it refused (a Buffer).
  return (err: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void => {
    // Node's parser keeps refusing what the client still sends after the answer, one
    // clientError each: the answer is out and the connection drains (endAfterDraining).
    if (socket.writableEnded && !socket.destroyed) return;
    // A client that went away gets nothing; one whose socket still writes gets the contract.
    if (err.code === "ECONNRESET" || !socket.writable) {
      socket.destroy();
      return;
    }
    const p =
      err.code === "HPE_HEADER_OVERFLOW" ? new Problem("headers_too_large", "The request headers are too large.")
      : err.code === "ERR_HTTP_REQUEST_TIMEOUT" ? new Problem("request_timeout", "The request was not received in time.")
      : new Problem("invalid_request", "The request could not be parsed as HTTP/1.1 (a malformed request line, header or length).");
    const surface = surfaceOf()(pathOfRawRequest(err.rawPacket));
    const id = requestIdFor({ headers: {} } as never);
    const status = p.status(surface);
    const body = JSON.stringify(p.body(surface, id));
    endAfterDraining(
      socket,
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        "Content-Type: application/json; charset=utf-8\r\n" +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${id}\r\n` +
        "Access-Control-Allow-Origin: *\r\n" +
        "Connection: close\r\n\r\n" +
        body,
    );
  };
}

/** How much of a refused request is read and dropped so its sender can read the answer. */
export const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;
export const DRAIN_TIMEOUT_MS = 5_000;

/**
 * Sends the answer, then reads and drops what the client still sends (up to a bound) before the
 * connection closes: closing with unread bytes makes the kernel reset the connection, and a
 * client still sending its body would lose the answer.
 */
function endAfterDraining(socket: Socket, answer: string): void {
  let seen = 0;
  const timer = setTimeout(() => socket.destroy(), DRAIN_TIMEOUT_MS);
  timer.unref();
  socket.on("data", (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > DRAIN_LIMIT_BYTES) socket.destroy();
  });
  socket.once("close", () => clearTimeout(timer));
  socket.end(answer);
}

/**
 * An answer sent before the body was read (a refused key, a 413, a wrong method) waits until the
 * rest of the body is read and dropped, up to the drain bound, so the client is not reset while
 * it still sends; past the bound the connection closes after the answer.
 */
export function drainUnreadBody(req: FastifyRequest, reply: FastifyReply, payload: unknown, done: HookHandlerDoneFunction): void {
  const raw = req.raw;
  const declaresBody = raw.headers["transfer-encoding"] !== undefined || Number(raw.headers["content-length"] ?? 0) > 0;
  if (!declaresBody || raw.complete || raw.readableEnded || raw.destroyed) return done();
  void discardBody(raw, DRAIN_LIMIT_BYTES, DRAIN_TIMEOUT_MS).then((drained) => {
    if (!drained) reply.header("connection", "close");
    done();
  });
}

/** Reads a request's remaining body and drops it; false if it ran past `limit` bytes or `timeoutMs`. */
function discardBody(raw: IncomingMessage, limit: number, timeoutMs: number): Promise<boolean> {
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

/** A URL Fastify cannot decode (bad percent-encoding): a 400 in the path's vocabulary. */
export function frameworkErrors(surfaceOf: () => SurfaceOfPath, send: (req: FastifyRequest, reply: FastifyReply, p: Problem, surface: Surface) => unknown) {
  return (err: Error & { code?: string }, req: FastifyRequest, reply: FastifyReply) => {
    reply.header("x-request-id", req.id).header("access-control-allow-origin", "*");
    const p = err.code === "FST_ERR_BAD_URL"
      ? new Problem("invalid_request", "The request path is not validly percent-encoded.")
      : new Problem("invalid_request", "The request could not be read.");
    return send(req, reply, p, surfaceOf()(req.url));
  };
}

/**
 * Caps open connections: `total` in all (Node refuses more), and `perAddress` for one client
 * address (0: no cap, for a gateway behind a proxy whose address all connections share). A
 * connection over the cap is closed at once, before any byte is read.
 */
export function limitConnections(server: Server, total: number, perAddress: number): void {
  server.maxConnections = total;
  if (perAddress === 0) return;
  const open = new Map<string, number>();
  server.on("connection", (socket: Socket) => {
    const address = socket.remoteAddress ?? "";
    const n = (open.get(address) ?? 0) + 1;
    if (n > perAddress) {
      socket.destroy();
      return;
    }
    open.set(address, n);
    socket.once("close", () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left === 0) open.delete(address);
      else open.set(address, left);
    });
  });
}
