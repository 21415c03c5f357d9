// The app's answers when something goes wrong, as pages in plain words: never a stack, never a
// service's own message, never JSON. Every answer names the request id to quote.
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { Code, ConnectError } from "@connectrpc/connect";
import { badRequestOf } from "@permits/rules";
import { html, type Html } from "./html.js";
import { page } from "./layout.js";
import { ReadOnlyError, type AppRequest } from "./context.js";
import { retryAfterOf } from "../../http/problems.js";

const MB = 1024 * 1024;
export const PHOTO_MAX_BYTES = 10 * MB;
export const PHOTO_MAX_COUNT = 20;

/** Requests whose form body is being read (between the app's preValidation and preHandler hooks). */
export const formsBeingRead = new WeakSet<FastifyRequest>();

const FORM_NOT_UNDERSTOOD = html`<p>The form was not sent as a web form, so nothing was saved.</p>`;

interface Answer {
  status: number;
  title: string;
  words: Html;
  /** Retry-After, on an answer to try again later: the same as the JSON API's. */
  retryAfter?: string;
}

function answerFor(err: unknown): Answer {
  if (err instanceof ReadOnlyError) {
    return { status: 403, title: "Read-only", words: html`<p>Your plan has been cancelled, so your sites are read-only: you can still open every record and download the exports until the records' retention period ends, but nothing can be added or changed. <a href="/pricing">Buy a plan</a> to work on them again.</p>` };
  }
  // Fastify's codes are strings (a ConnectError's is a number, handled below).
  const raw = (err as { code?: unknown } | null)?.code;
  const code = typeof raw === "string" ? raw : "";
  if (code.startsWith("FST_CSRF")) {
    return { status: 403, title: "Form expired", words: html`<p>This form has expired or did not come from this site, so nothing was saved. Go back, reload the page and send it again.</p>` };
  }
  if (code === "FST_REQ_FILE_TOO_LARGE") {
    return { status: 413, title: "Photo too large", words: html`<p>A photo is larger than 10 MB, so nothing was saved. Make it smaller (most phones can send a smaller size) and send the form again.</p>` };
  }
  if (code === "FST_FILES_LIMIT" || code === "FST_PARTS_LIMIT") {
    return { status: 413, title: "Too many photos", words: html`<p>An inspection report can hold at most ${PHOTO_MAX_COUNT} photos, so nothing was saved. Choose fewer and send the form again.</p>` };
  }
  if (code === "FST_ERR_CTP_BODY_TOO_LARGE" || code === "FST_FIELDS_LIMIT" || code === "FST_PROTO_VIOLATION") {
    return { status: 413, title: "Form too large", words: html`<p>The form sent more than this page accepts, so nothing was saved. Shorten the longest answers and try again.</p>` };
  }
  if (code === "FST_ERR_CTP_INVALID_MEDIA_TYPE" || code === "FST_INVALID_MULTIPART_CONTENT_TYPE") {
    return { status: 415, title: "Form not understood", words: FORM_NOT_UNDERSTOOD };
  }
  if (err instanceof ConnectError || (err as Error)?.name === "ConnectError") {
    const e = ConnectError.from(err);
    if (e.code === Code.NotFound) return { status: 404, title: "Not found", words: html`<p>There is no such record among your sites.</p><p><a href="/app">Back to your sites</a></p>` };
    if (e.code === Code.InvalidArgument) {
      const problems = badRequestOf(e)?.violations.map((v) => v.description) ?? [];
      return { status: 400, title: "Not saved", words: html`<p>Nothing was saved: some of what was sent cannot be kept as it is.</p><ul>${problems.map((p) => html`<li>${p}</li>`)}</ul><p>Go back, correct it and send it again.</p>` };
    }
    if (e.code === Code.FailedPrecondition) {
      return { status: 409, title: "Cannot be changed", words: html`<p>This record is signed or closed, and a signed record never changes. To correct a signed inspection report, amend it: the amendment is a new version with your reason, and the signed one stays as it was.</p>` };
    }
    if (e.code === Code.Unavailable || e.code === Code.DeadlineExceeded) {
      return { status: 503, title: "Try again shortly", words: html`<p>A part of the service is not answering right now. Nothing is lost; try again in a minute.</p>`, retryAfter: retryAfterOf(e) };
    }
  }
  const status = (err as FastifyError).statusCode;
  if (status === 404) return { status: 404, title: "Not found", words: html`<p>There is no such page.</p><p><a href="/app">Back to your sites</a></p>` };
  // Any other refusal of the request itself (a form the parser cannot read, say) is the sender's, never ours.
  if (status !== undefined && status >= 400 && status < 500) return { status, title: "Not understood", words: html`<p>What was sent could not be read, so nothing was saved. Go back, reload the page and try again.</p>` };
  return { status: 500, title: "Something went wrong", words: html`<p>Something went wrong on our side and nothing was changed. Try again; if it happens again, tell us the reference below.</p>` };
}

export async function appErrorHandler(this: unknown, err: unknown, req: FastifyRequest, reply: FastifyReply) {
  const unreadable = formsBeingRead.has(req) && (err as FastifyError | null)?.statusCode === undefined && (err as FastifyError | null)?.code === undefined;
  const a: Answer = unreadable ? { status: 400, title: "Form not understood", words: FORM_NOT_UNDERSTOOD } : answerFor(err);
  if (a.status >= 500 && a.status !== 503) req.log.error({ err }, "app page failed");
  const signedIn = (req as AppRequest).appSession !== undefined;
  const body = page({ title: a.title, signOutToken: signedIn ? reply.generateCsrf() : undefined }, html`<h1>${a.title}</h1>${a.words}<p class="muted">Reference: ${String(req.id)}</p>`);
  if (a.retryAfter) reply.header("retry-after", a.retryAfter);
  return reply.code(a.status).type("text/html; charset=utf-8").send(body);
}
