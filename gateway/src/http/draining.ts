// Every answer carries its request id; once the server is closing, requests still arriving get
// the surface's 503 while those in flight finish. Registered before CORS: its preflight answers
// come from its own hook, and carry a request id too.
import fp from "fastify-plugin";
import { Problem } from "./problems.js";
import { sendProblem } from "./send-problem.js";
import type { SurfaceOfPath } from "./problems.js";

export const draining = fp<{ surfaceOfPath: SurfaceOfPath }>(
  async (app, { surfaceOfPath }) => {
    let closing = false;
    app.addHook("preClose", (done) => {
      closing = true;
      done();
    });
    // Callback-style: nothing here waits, and an async hook costs a promise per request.
    app.addHook("onRequest", (req, reply, done) => {
      reply.header("x-request-id", req.id);
      if (!closing) return done();
      // Shutting down: in-flight requests finish; new ones are told to retry elsewhere.
      reply.header("connection", "close");
      void sendProblem(req, reply, new Problem("internal", "The server is shutting down. Retry shortly; quote the request id.", { status: 503, headers: { "retry-after": "1" } }), surfaceOfPath(req.url));
    });
  },
  { name: "draining" },
);
