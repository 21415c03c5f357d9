// Answers that no route handler writes, in the contract anyway: requests Node's HTTP parser
// refuses (Fastify's clientErrorHandler), URLs Fastify cannot decode (frameworkErrors), and
// requests that arrive while the gateway drains. Each carries a request id and the error
// vocabulary of the surface its path names (the stormwater surface's when it cannot be read).
import type { Socket } from "node:net";
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from "fastify";
import fp from "fastify-plugin";
import { Problem, type Surface, type SurfaceOfPath } from "./problems.js";
import { requestIdFor } from "./request-id.js";
import { answerAfterInFlight, discardBody, DRAIN_LIMIT_BYTES, DRAIN_TIMEOUT_MS, endAfterDraining, pathOfRawRequest, rawAnswer } from "./socket-edges.js";


/** Node's parser refused the request: answer in the contract and close the connection. */
export function clientErrorHandler(surfaceOf: () => SurfaceOfPath) {
  // Node's parser error: its code (HPE_*), and the bytes it refused (a Buffer).
  return (err: Error & { code?: string; rawPacket?: unknown; bytesParsed?: number }, socket: Socket): void => {
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
    const surface = surfaceOf()(pathOfRawRequest(err.rawPacket, err.bytesParsed));
    const id = requestIdFor({ headers: {} } as never);
    // A request read before the refused bytes (pipelined in one packet) is answered first.
    answerAfterInFlight(socket, () => endAfterDraining(socket, rawAnswer(p, surface, id)));
  };
}

/**
 * An answer sent before the body was read (a refused key, a 413, a wrong method, a path that
 * cannot be decoded) waits until the rest of the body is read and dropped, up to the drain bound,
 * so the client is not reset while it still sends; past the bound the connection closes after
 * the answer.
 */
function afterUnreadBody(req: FastifyRequest, reply: FastifyReply, then: () => void): void {
  const raw = req.raw;
  const declaresBody = raw.headers["transfer-encoding"] !== undefined || Number(raw.headers["content-length"] ?? 0) > 0;
  if (!declaresBody || raw.complete || raw.readableEnded || raw.destroyed) return then();
  void discardBody(raw, DRAIN_LIMIT_BYTES, DRAIN_TIMEOUT_MS).then((drained) => {
    if (!drained) reply.header("connection", "close");
    then();
  });
}

function drainUnreadBody(req: FastifyRequest, reply: FastifyReply, _payload: unknown, done: HookHandlerDoneFunction): void {
  afterUnreadBody(req, reply, () => done());
}

/**
 * A URL Fastify cannot decode (bad percent-encoding): a 400 in the path's vocabulary. Fastify
 * calls this outside the route's hooks, so the unread body is dropped here before the answer.
 */
export function frameworkErrors(surfaceOf: () => SurfaceOfPath, send: (req: FastifyRequest, reply: FastifyReply, p: Problem, surface: Surface) => unknown) {
  return (err: Error & { code?: string }, req: FastifyRequest, reply: FastifyReply) => {
    reply.header("x-request-id", req.id).header("access-control-allow-origin", "*");
    const p = err.code === "FST_ERR_BAD_URL"
      ? new Problem("invalid_request", "The request path is not validly percent-encoded.")
      : new Problem("invalid_request", "The request could not be read.");
    afterUnreadBody(req, reply, () => void send(req, reply, p, surfaceOf()(req.url)));
  };
}

/** `drainUnreadBody` on every answer (a callback hook: nothing waits when there is no body). */
export const unreadBodies = fp(
  async (app) => {
    app.addHook("onSend", drainUnreadBody);
  },
  { name: "unread-bodies" },
);
