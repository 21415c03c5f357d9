// The app (issue 40) in its own Fastify context: web forms (urlencoded and, for photos,
// multipart) where the rest of the gateway reads JSON; cookies, CSRF tokens on every form and
// server-side sessions; HTML error pages. Registered without fastify-plugin, so none of this
// leaks into the API's routes.
import type { FastifyPluginAsync } from "fastify";
import cookie from "@fastify/cookie";
import csrf from "@fastify/csrf-protection";
import multipart from "@fastify/multipart";
import { AppAccess } from "@permits/proto/entitlement/v1/entitlement";
import type { AppDeps } from "../../deps.js";
import { appErrorHandler, formsBeingRead, PHOTO_MAX_BYTES, PHOTO_MAX_COUNT } from "./errors.js";
import { landingRoute } from "./landing.js";
import { APP_STYLE_PATH, appStyle } from "./style.js";
import { Sessions } from "./sessions.js";
import { signInRoutes } from "./sign-in.js";
import { csrfTokenOf, type AppRequest } from "./context.js";
import { dashboard, siteRoutes } from "./sites.js";
import { planRoutes } from "./plans.js";
import { inspectionRoutes } from "./inspections.js";
import { recordRoutes } from "./records.js";
import { frequencyRoutes } from "./frequency.js";
import { webhookRoutes } from "./webhooks.js";

/** Form bodies: an inspection report with its findings fits well inside this. */
const FORM_LIMIT_BYTES = 256 * 1024;

export const appPlugin: FastifyPluginAsync<{ deps: AppDeps }> = async (app, { deps }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string", bodyLimit: FORM_LIMIT_BYTES }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  // The multipart plugin reads a form in its preValidation hook, after this one; an error there
  // without a status of its own (busboy's "Unexpected end of multipart data") is a malformed form.
  app.addHook("preValidation", async (req) => void formsBeingRead.add(req));
  await app.register(multipart, {
    attachFieldsToBody: true,
    // A photo over the limit arrives cut short and marked, so the form can say so beside its field.
    throwFileSizeLimit: false,
    limits: { fileSize: PHOTO_MAX_BYTES, files: PHOTO_MAX_COUNT, fields: 400, fieldSize: 64 * 1024, parts: PHOTO_MAX_COUNT + 400 },
  });
  app.addHook("preHandler", async (req) => void formsBeingRead.delete(req));
  await app.register(cookie);
  await app.register(csrf, { sessionPlugin: "@fastify/cookie", getToken: csrfTokenOf, cookieOpts: { path: "/app", httpOnly: true, sameSite: "lax", secure: "auto" } });
  app.setErrorHandler(appErrorHandler);

  // Kept by the sites service, so every replica of the gateway knows every session.
  const sessions = new Sessions(deps.clients.sites);
  app.decorateRequest("appSession", undefined);
  app.addHook("onRequest", async (req) => {
    // The stylesheet is everybody's: no session is looked up for it.
    if (!req.url.startsWith("/app") || req.routeOptions.url === APP_STYLE_PATH) return;
    const session = await sessions.read(req);
    (req as AppRequest).appSession = session;
    // Every change asks again whether the plan still allows it: a plan cancelled while a session
    // is open turns that session read-only at its next change.
    if (session && !session.readOnly && req.method === "POST" && !req.url.startsWith("/app/session")) {
      const now = await deps.clients.entitlement.resolveAccount({ apiKey: "", keyId: session.keyId });
      if (now.access !== AppAccess.WORKSPACE) await sessions.markReadOnly(session);
    }
  });
  app.addHook("onSend", async (_req, reply, payload) => {
    // Pages of an account are not kept by shared caches, nor framed by another site.
    reply.header("cache-control", reply.getHeader("cache-control") ?? "no-store");
    reply.header("x-frame-options", "DENY");
    reply.header("x-content-type-options", "nosniff");
    return payload;
  });

  await app.register(appStyle);
  landingRoute(app);
  signInRoutes(app, deps, sessions, dashboard(deps));
  siteRoutes(app, deps);
  planRoutes(app, deps);
  inspectionRoutes(app, deps);
  recordRoutes(app, deps);
  frequencyRoutes(app, deps);
  webhookRoutes(app, deps);
};
