// Signing in and out: GET /app (the sign-in page, or the dashboard when signed in), POST
// /app/session (field api_key) and POST /app/session/end. Attempts are counted per calling
// address under the tier table's `app-sign-in` policy (the rate-limit service), before the key is
// looked at, so guessing keys costs the guesser the same as typing them.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Code, ConnectError } from "@connectrpc/connect";
import { AppAccess, Plan } from "@permits/proto/entitlement/v1/entitlement";
import type { AppDeps } from "../../deps.js";
import { html, type Html } from "./html.js";
import { page } from "./layout.js";
import type { Sessions } from "./sessions.js";
import { formOf, type AppRequest } from "./context.js";

export const SIGN_IN_POLICY = "app-sign-in";

function signInPage(token: string, problem?: Html): string {
  return page(
    { title: "Sign in" },
    html`<h1>Sign in to your sites</h1>
<p>Your stormwater sites, their plan documents, inspection schedule, signed inspection reports and corrective actions, in one place. It comes with the Stormwater Pro and Scale plans.</p>
${problem ? html`<div class="error-summary" role="alert" id="sign-in-error">${problem}</div>` : ""}
<form method="post" action="/app/session">
<input type="hidden" name="_csrf" value="${token}">
<label for="api_key">Your API key <span class="hint">The live key you got when you bought the plan. It starts with svc_live_.</span></label>
<input id="api_key" name="api_key" type="password" autocomplete="current-password" required maxlength="200" spellcheck="false">
<p><button type="submit">Sign in</button></p>
</form>
<p>No plan yet? See <a href="/pricing">plans and prices</a>.</p>`,
  );
}

function notIncludedPage(token: string): string {
  return signInPage(
    token,
    html`<p>This key works with the API, but the app is not part of its plan. The app comes with the <strong>Stormwater Pro</strong> and <strong>Stormwater Scale</strong> plans: sign in with the live key (svc_live_…) of one of them.</p><p><a href="/pricing">See the plans that include the app</a>.</p>`,
  );
}

export function signInRoutes(app: FastifyInstance, deps: AppDeps, sessions: Sessions, dashboard: (req: AppRequest, reply: FastifyReply) => Promise<unknown>): void {
  const { entitlement, ratelimit } = deps.clients;

  app.get("/app", async (req, reply) => {
    const r = req as AppRequest;
    if (r.appSession) return dashboard(r, reply);
    return reply.type("text/html; charset=utf-8").send(signInPage(reply.generateCsrf()));
  });

  app.post("/app/session", { preHandler: app.csrfProtection }, async (req: FastifyRequest, reply) => {
    const send = (status: number, body: string) => reply.code(status).type("text/html; charset=utf-8").send(body);
    const decision = await ratelimit.decide({ policy: SIGN_IN_POLICY, bucket: `ip:${req.ip}`, cost: 1 });
    if (!decision.allowed) {
      reply.header("retry-after", String(decision.retryAfterSeconds));
      return send(429, signInPage(reply.generateCsrf(), html`<p>Too many sign-in attempts from your address. Wait ${Math.max(1, Math.ceil(decision.retryAfterSeconds / 60))} minute(s) and try again.</p>`));
    }
    const apiKey = (formOf(req).api_key ?? "").trim();
    if (!apiKey) return send(400, signInPage(reply.generateCsrf(), html`<p>Enter your API key.</p>`));
    let account;
    try {
      account = await entitlement.resolveAccount({ apiKey });
    } catch (err) {
      const e = ConnectError.from(err);
      if (e.code === Code.Unauthenticated) return send(401, signInPage(reply.generateCsrf(), html`<p>That key was not recognised, or it has been revoked. Check it and try again.</p>`));
      throw err;
    }
    if (account.access === AppAccess.NOT_INCLUDED || (account.plan !== Plan.PRO && account.plan !== Plan.SCALE)) return send(403, notIncludedPage(reply.generateCsrf()));
    await sessions.start(req, reply, { accountId: account.accountId, keyId: account.keyId, plan: account.plan, access: account.access });
    return reply.code(303).header("location", "/app").send();
  });

  app.post("/app/session/end", { preHandler: app.csrfProtection }, async (req, reply) => {
    await sessions.end(req, reply);
    return reply.code(303).header("location", "/app").send();
  });
}
