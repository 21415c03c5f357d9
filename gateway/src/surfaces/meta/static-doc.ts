import { createHash } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";

/**
 * A document computed once at start: served with an ETag and Cache-Control, answering
 * If-None-Match with 304, and carrying no rate-limit headers (it is not metered).
 */
export function staticJson(doc: unknown): (req: FastifyRequest, reply: FastifyReply) => Promise<unknown> {
  const body = JSON.stringify(doc);
  const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;
  return async (req, reply) => {
    reply.header("etag", etag).header("cache-control", "public, max-age=300");
    if (req.headers["if-none-match"] === etag) return reply.code(304).send();
    return reply.type("application/json; charset=utf-8").send(body);
  };
}
