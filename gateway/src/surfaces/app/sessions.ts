// Server-side sessions of the app. The cookie holds a random id (32 bytes); the sites service keeps
// the session under the id's SHA-256 (its app_sessions table), so every gateway replica knows every
// session and the id itself never leaves the gateway. That service decides when a session has been
// idle too long, by its own clock. The cookie is HttpOnly, SameSite=Lax, path /app, and Secure when
// the request came over TLS (directly, or through a proxy TRUST_PROXY names: @fastify/cookie's
// "auto" reads Fastify's request protocol). Sign-in always makes a new id and ends the old session.
import { createHash, randomBytes } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { AppAccess, type Plan } from "@permits/proto/entitlement/v1/entitlement";
import type { AppDeps } from "../../deps.js";

export const SESSION_COOKIE = "app_session";
export const IDLE_LIMIT_MS = 12 * 60 * 60 * 1000;
const COOKIE_OPTIONS = { path: "/app", httpOnly: true, sameSite: "lax", secure: "auto" } as const;
/** What newId() makes (32 random bytes, base64url): any other cookie is no session, and costs no lookup. */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

function newId(): string {
  return randomBytes(32).toString("base64url");
}

/** Who signed in, as the entitlement service resolved their key at sign-in. */
export interface SessionFields {
  accountId: string;
  keyId: string;
  plan: Plan;
  access: AppAccess;
}

export interface AppSession extends SessionFields {
  /** The SHA-256 of the session id: how the sites service knows the session. */
  digest: string;
  readOnly: boolean;
}

function digestOf(id: string): string {
  return createHash("sha256").update(id).digest("hex");
}

/** The digest of the request's session cookie; undefined when it carries none worth looking up. */
function cookieDigest(req: FastifyRequest): string | undefined {
  const id = req.cookies[SESSION_COOKIE];
  return id && SESSION_ID.test(id) ? digestOf(id) : undefined;
}

export class Sessions {
  constructor(private readonly sites: AppDeps["clients"]["sites"]) {}

  /** The request's live session (the sites service moves its idle clock on); undefined when none or expired. */
  async read(req: FastifyRequest): Promise<AppSession | undefined> {
    const digest = cookieDigest(req);
    if (!digest) return undefined;
    const { session } = await this.sites.getSession({ idSha256: digest });
    if (!session) return undefined;
    const { accountId, keyId, plan, access } = session;
    return { accountId, keyId, plan, access, digest, readOnly: access !== AppAccess.WORKSPACE };
  }

  /** Signs in: a new id, whatever the request carried (the old session, if any, is ended). */
  async start(req: FastifyRequest, reply: FastifyReply, fields: SessionFields): Promise<void> {
    await this.end(req, reply);
    const id = newId();
    await this.sites.createSession({ idSha256: digestOf(id), ...fields, idleLimitSeconds: IDLE_LIMIT_MS / 1000 });
    reply.setCookie(SESSION_COOKIE, id, { ...COOKIE_OPTIONS, maxAge: IDLE_LIMIT_MS / 1000 });
  }

  /** From now on the session only reads: its plan was cancelled while it was open. */
  async markReadOnly(session: AppSession): Promise<void> {
    await this.sites.makeSessionReadOnly({ idSha256: session.digest });
    session.readOnly = true;
    session.access = AppAccess.READ_ONLY;
  }

  async end(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const digest = cookieDigest(req);
    if (digest) await this.sites.endSession({ idSha256: digest });
    reply.clearCookie(SESSION_COOKIE, COOKIE_OPTIONS);
  }
}
