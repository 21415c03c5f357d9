// What every /app route shares: the signed-in request, the form fields, and the guards that a
// page needs a session (else the sign-in page) and a change needs a plan that is still active.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { AppSession } from "./sessions.js";

export interface AppRequest extends FastifyRequest {
  appSession?: AppSession;
}

export type SignedIn = FastifyRequest & { appSession: AppSession };

/** The urlencoded form's fields (a field sent twice keeps its last value). */
export function formOf(req: FastifyRequest): Record<string, string> {
  const body = req.body;
  return body !== null && typeof body === "object" ? (body as Record<string, string>) : {};
}

export class ReadOnlyError extends Error {
  constructor() {
    super("read-only");
    this.name = "ReadOnlyError";
  }
}

/** preHandler: a page of the workspace; a visitor without a session goes to the sign-in page. */
export async function requireSession(req: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (!(req as AppRequest).appSession) await reply.code(303).header("location", "/app").send();
}

/** preHandler: a change; refused when the plan was cancelled (records stay readable). */
export async function requireWritable(req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const session = (req as AppRequest).appSession;
  if (!session) return void (await reply.code(303).header("location", "/app").send());
  if (session.readOnly) throw new ReadOnlyError();
}

/** Who made a change, for the audit trail: the key's id (never its secret). */
export function actorOf(req: SignedIn): string {
  return `key:${req.appSession.keyId}`;
}
