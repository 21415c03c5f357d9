// Any declared content type is read as JSON: clients that send text/plain or form encoding get a
// precise invalid_json instead of a 415.
import fp from "fastify-plugin";

export const jsonBodies = fp(
  async (app) => {
    app.removeAllContentTypeParsers();
    app.addContentTypeParser("*", { parseAs: "string" }, (_req, body, done) => {
      if (body === "") return done(null, undefined);
      try {
        done(null, JSON.parse(body as string));
      } catch {
        done(Object.assign(new Error("invalid json"), { code: "FST_ERR_CTP_INVALID_JSON_BODY", statusCode: 400 }), undefined);
      }
    });
  },
  { name: "json-bodies" },
);
