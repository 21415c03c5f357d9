// Every error a route or hook throws, answered as a Problem in the vocabulary of the surface
// answering the request; Fastify's own errors (body parsing and limits) in the contract's terms.
import fp from "fastify-plugin";
import type { FastifyError } from "fastify";
import { Problem, toProblem } from "./problems.js";
import { sendProblem } from "./send-problem.js";
import type { SurfaceOfPath } from "./problems.js";
import { notFoundProblem } from "./not-found.js";
import type { RouteSpec } from "./route-table.js";

export const errorHandler = fp<{ bodyLimit: number; surfaceOfPath: SurfaceOfPath; routes: RouteSpec[] }>(
  async (app, { bodyLimit, surfaceOfPath, routes }) => {
    const notFound = notFoundProblem(routes);
    app.setErrorHandler(async (err: FastifyError, req, reply) => {
      const surface = req.surface ?? req.routeOptions.config?.surface ?? surfaceOfPath(req.url);
      if (clientWentAway(err)) {
        // Not a server fault: nobody reads the answer; no error-level log line.
        req.log.debug({ code: err.code }, "client went away");
        return sendProblem(req, reply, new Problem("invalid_request", "The request was not completed by the client."), surface);
      }
      // Fastify checks a body-bearing method's Content-Type before the 404 handler runs.
      if (req.is404) return sendProblem(req, reply, notFound(req), surface);
      return sendProblem(req, reply, problemOf(err, bodyLimit), surface, err);
    });
  },
  { name: "error-handler" },
);

/** The client aborted or reset the connection while its request was being read. */
function clientWentAway(err: FastifyError): boolean {
  return err.code === "ECONNRESET" || err.code === "ECONNABORTED" || err.message === "aborted";
}

/** Fastify's own errors (body parsing and limits) in the contract's terms. */
function problemOf(err: FastifyError, bodyLimit: number): Problem {
  switch (err.code) {
    case "FST_ERR_CTP_INVALID_JSON_BODY":
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return new Problem("invalid_json", "The request body is not valid JSON.");
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return new Problem("payload_too_large", `The request body exceeds the limit of ${bodyLimit} bytes.`, { details: { limit_bytes: bodyLimit } });
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
    case "FST_ERR_ROUTE_MISSING_CONTENT_TYPE":
      return new Problem("unsupported_media_type", "Send the request body as application/json.");
  }
  // Any other refusal of Fastify's own is the client's: a 400 in plain words, never an internal error.
  if (!(err instanceof Problem) && typeof err.code === "string" && err.code.startsWith("FST_") && (err.statusCode ?? 500) < 500) {
    return new Problem("invalid_request", "The request could not be read.");
  }
  return toProblem(err);
}
