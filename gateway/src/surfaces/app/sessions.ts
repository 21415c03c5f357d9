// Server-side sessions of the app. The cookie holds a random id (32 bytes); the store holds only
// its SHA-256 (session-store.ts). HttpOnly, SameSite=Lax, path /app, and Secure when the request
// came over TLS (directly, or through a proxy TRUST_PROXY names: @fastify/cookie's "auto" reads
// Fastify's request protocol). Sign-in always makes a new id and drops the old session; a session
// idle for 12 hours is gone.
import { randomBytes } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Clock } from "@permits/runtime";
import { AppAccess } from "@permits/proto/entitlement/v1/entitlement";
import { sessionDigest, type SessionRecord, type SessionStore } from "./session-store.js";

export const SESSION_COOKIE = "app_session";
export const IDLE_LIMIT_MS = 12 * 60 * 60 * 1000;
/** A session's idle clock is written at most this often (not on every request). */
const TOUCH_EVERY_MS = 60 * 1000;
const COOKIE_OPTIONS = { path: "/app", httpOnly: true, sameSite: "lax", secure: "auto" } as const;

export interface AppSession extends SessionRecord {
  digest: string;
  readOnly: boolean;
}

export class Sessions {
  constructor(
    private readonly store: SessionStore,
    private readonly clock: Clock,
  ) {}

  /** The request's live session, its idle clock moved on; undefined when none or expired. */
  async read(req: FastifyRequest): Promise<AppSession | undefined> {
    const id = req.cookies[SESSION_COOKIE];
    if (!id || id.length > 100) return undefined;
    const digest = sessionDigest(id);
    const record = await this.store.get(digest);
    if (!record) return undefined;
    const now = this.clock.now();
    if (now - record.seenAt > IDLE_LIMIT_MS) {
      await this.store.delete(digest);
      return undefined;
    }
    if (now - record.seenAt >= TOUCH_EVERY_MS) {
      record.seenAt = now;
      await this.store.put(digest, record, IDLE_LIMIT_MS);
    }
    return { ...record, digest, readOnly: record.access !== AppAccess.WORKSPACE };
  }

  /** Signs in: a new id, whatever the request carried (the old session, if any, is dropped). */
  async start(req: FastifyRequest, reply: FastifyReply, fields: Omit<SessionRecord, "createdAt" | "seenAt">): Promise<void> {
    await this.end(req, reply);
    const id = randomBytes(32).toString("base64url");
    const now = this.clock.now();
    await this.store.put(sessionDigest(id), { ...fields, createdAt: now, seenAt: now }, IDLE_LIMIT_MS);
    reply.setCookie(SESSION_COOKIE, id, { ...COOKIE_OPTIONS, maxAge: IDLE_LIMIT_MS / 1000 });
  }

  /** From now on the session only reads: its plan was cancelled while it was open. */
  async markReadOnly(session: AppSession): Promise<void> {
    const { digest, readOnly: _readOnly, ...record } = session;
    await this.store.put(digest, { ...record, access: AppAccess.READ_ONLY }, IDLE_LIMIT_MS);
    session.readOnly = true;
    session.access = AppAccess.READ_ONLY;
  }

  async end(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const id = req.cookies[SESSION_COOKIE];
    if (id && id.length <= 100) await this.store.delete(sessionDigest(id));
    reply.clearCookie(SESSION_COOKIE, COOKIE_OPTIONS);
  }
}
