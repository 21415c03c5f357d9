// One structured line per request, instead of Fastify's two; the key headers are never part of it,
// nor a checkout session id (the success page shows a session's keys once to whoever holds it).
import fp from "fastify-plugin";

/** The URL as logged: a `session_id` query value is replaced, everything else kept. */
export function loggedUrl(url: string): string {
  return url.includes("session_id=") ? url.replace(/([?&]session_id=)[^&#]*/g, "$1[redacted]") : url;
}

export const requestLog = fp(
  async (app) => {
    // Callback-style: nothing here waits, and an async hook costs a promise per request.
    app.addHook("onResponse", (req, reply, done) => {
      req.log.info({ method: req.method, url: loggedUrl(req.url), status: reply.statusCode, ms: Math.round(reply.elapsedTime * 100) / 100 }, "request");
      done();
    });
  },
  { name: "request-log" },
);
