// The one way a Problem leaves the gateway outside a route's own answer.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Problem, Surface } from "./problems.js";

/** Writes a Problem in the surface's vocabulary; the cause of an internal one is logged, never sent. */
export function sendProblem(req: FastifyRequest, reply: FastifyReply, p: Problem, surface: Surface, cause?: unknown) {
  if (p.kind === "internal") req.log.error({ err: cause }, "internal error");
  for (const [k, v] of Object.entries(p.extra.headers ?? {})) reply.header(k, v);
  return reply.code(p.status(surface)).type("application/json; charset=utf-8").send(p.body(surface, req.id));
}
