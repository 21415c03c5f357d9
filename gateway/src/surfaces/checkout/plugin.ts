// Checkout's routes in their own Fastify context: they read the body as raw bytes (the webhook's
// signature covers the exact bytes Stripe sent; the forms are urlencoded), where the rest of the
// gateway parses JSON. Registered without fastify-plugin, so the parser stays in here.
import type { FastifyPluginAsync } from "fastify";
import { routeTable, type RouteSpec } from "../../http/route-table.js";

export const checkoutPlugin: FastifyPluginAsync<{ routes: RouteSpec[] }> = async (app, { routes }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_req, body, done) => done(null, body));
  await app.register(routeTable, { routes });
};
