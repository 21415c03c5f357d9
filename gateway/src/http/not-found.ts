// A path no route serves: not_found in the vocabulary of the nearest route, listing every endpoint.
import fp from "fastify-plugin";
import { Problem } from "./problems.js";
import { sendProblem } from "./send-problem.js";
import type { SurfaceOfPath } from "./below-app.js";
import type { RouteSpec } from "./route-table.js";

export const notFound = fp<{ routes: RouteSpec[]; surfaceOfPath: SurfaceOfPath }>(
  async (app, { routes, surfaceOfPath }) => {
    const endpoints = routes.map((r) => `${r.method} ${r.url}`);
    app.setNotFoundHandler(async (req, reply) => {
      const p = new Problem("not_found", `No endpoint at ${req.method} ${req.url.split("?")[0]}.`, {
        details: { endpoints },
        knownValues: { endpoint: endpoints },
      });
      return sendProblem(req, reply, p, surfaceOfPath(req.url));
    });
  },
  { name: "not-found" },
);
