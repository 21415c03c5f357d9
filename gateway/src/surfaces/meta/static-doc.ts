import { createHash } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { ATTRIBUTION, DISCLAIMER } from "../stormwater/envelope.js";

type Handler = (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

function etagOf(content: string, weak: boolean): string {
  const tag = `"${createHash("sha256").update(content).digest("base64url").slice(0, 27)}"`;
  return weak ? `W/${tag}` : tag;
}

/** Cache headers and 304 for If-None-Match; true when the 304 was sent. */
function notModified(req: FastifyRequest, reply: FastifyReply, etag: string): boolean {
  reply.header("etag", etag).header("cache-control", "public, max-age=300");
  if (req.headers["if-none-match"] !== etag) return false;
  reply.code(304).send();
  return true;
}

/**
 * A document computed once at start: served with an ETag and Cache-Control, answering
 * If-None-Match with 304, and carrying no rate-limit headers (it is not metered).
 */
export function staticJson(doc: unknown): Handler {
  return staticBody(JSON.stringify(doc), "application/json; charset=utf-8");
}

export function staticBody(body: string, contentType: string): Handler {
  const etag = etagOf(body, false);
  return async (req, reply) => {
    if (notModified(req, reply, etag)) return reply;
    return reply.type(contentType).send(body);
  };
}

/**
 * The same, in the stormwater surface's success envelope (every success of the API is): the data is written
 * once; only the request id changes per response, so the ETag is weak (same data, other bytes).
 * Unmetered, so the caller is never identified and the envelope is the public one.
 */
export function staticEnvelope(doc: unknown): Handler {
  const data = JSON.stringify(doc);
  const head = `{"data":${data},"request_id":`;
  const tail = `,"disclaimer":${JSON.stringify(DISCLAIMER)},"attribution":${JSON.stringify(ATTRIBUTION)}}`;
  const etag = etagOf(head + tail, true);
  return async (req, reply) => {
    if (notModified(req, reply, etag)) return reply;
    return reply.type("application/json; charset=utf-8").send(head + JSON.stringify(req.id) + tail);
  };
}
