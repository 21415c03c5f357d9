// The ceiling: a bare Fastify route on the same machine answering POST /api/v1/determine with
// precomputed determinations (real answers of the embedded deployment to the benchmark's own
// inputs, so the bytes on the wire match), parsing the JSON body like the real route does.
//   PORT=... CEILING_BODIES=<file holding a JSON array of response bodies> node bench/ceiling.mjs
import { readFileSync } from "node:fs";
import Fastify from "fastify";

const bodies = JSON.parse(readFileSync(process.env.CEILING_BODIES, "utf8"));
const app = Fastify({ logger: false });
let i = 0;
app.post("/api/v1/determine", async (_req, reply) => {
  const body = bodies[i++ % bodies.length];
  return reply.type("application/json; charset=utf-8").send(body);
});
app.get("/readyz", async () => ({ status: "ok" }));
await app.listen({ host: "127.0.0.1", port: Number(process.env.PORT) });
process.once("SIGTERM", () => void app.close().then(() => process.exit(0)));
