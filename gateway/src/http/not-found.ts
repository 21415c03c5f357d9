// A path no route serves: not_found in the vocabulary of the nearest route, listing every endpoint.
import fp from "fastify-plugin";
import type { FastifyRequest } from "fastify";
import { Problem } from "./problems.js";
import { sendProblem } from "./send-problem.js";
import type { SurfaceOfPath } from "./problems.js";
import type { RouteSpec } from "./route-table.js";

export const notFound = fp<{ routes: RouteSpec[]; surfaceOfPath: SurfaceOfPath }>(
  async (app, { routes, surfaceOfPath }) => {
    const answer = notFoundProblem(routes);
    app.setNotFoundHandler(async (req, reply) => sendProblem(req, reply, answer(req), surfaceOfPath(req.url)));
  },
  { name: "not-found" },
);

/** The not_found answer for a request no route serves, listing every endpoint of the table. */
export function notFoundProblem(routes: RouteSpec[]): (req: FastifyRequest) => Problem {
  const endpoints = routes.map((r) => `${r.method} ${r.url}`);
  return (req) =>
    new Problem("not_found", `No endpoint at ${req.method} ${req.url.split("?")[0]}.`, {
      details: { endpoints },
      knownValues: { endpoint: endpoints },
    });
}
