// Response bodies splice the pre-written JSON of messages (see public-json.ts).
import fp from "fastify-plugin";
import { serializeBody } from "./public-json.js";

export const publicJsonReplies = fp(
  async (app) => {
    app.setReplySerializer((payload) => serializeBody(payload) as unknown as string); // Fastify sends Buffers as they are
  },
  { name: "public-json-replies" },
);
