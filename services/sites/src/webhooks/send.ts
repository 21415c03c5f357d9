// One delivery attempt: a POST that follows no redirect, gives up after the timeout, and keeps at
// most the first kilobyte of the answer. Never throws: every outcome is a status and plain words.
import type { IncomingMessage } from "node:http";
import { StringDecoder } from "node:string_decoder";
import { checkHost, guardedLookup, TargetRefused, type TargetPolicy } from "./targets.js";

/** The most of a response body kept in the delivery log. */
export const EXCERPT_BYTES = 1024;

export interface AttemptResult {
  /** The HTTP status; 0 when no answer came. */
  status: number;
  delivered: boolean;
  /** Why it did not count as delivered; empty when it did. */
  error: string;
  /** The response body's first EXCERPT_BYTES bytes as text (an incomplete last character dropped). */
  excerpt: string;
}

const failed = (error: string): AttemptResult => ({ status: 0, delivered: false, error, excerpt: "" });

function outcome(res: IncomingMessage, excerpt: string): AttemptResult {
  const status = res.statusCode ?? 0;
  if (status >= 200 && status < 300) return { status, delivered: true, error: "", excerpt };
  if (status >= 300 && status < 400) return { status, delivered: false, error: `The endpoint answered with a redirect (HTTP ${status}${res.headers.location ? ` to ${res.headers.location.slice(0, 200)}` : ""}); redirects are not followed.`, excerpt };
  return { status, delivered: false, error: `The endpoint answered HTTP ${status}.`, excerpt };
}

function networkError(err: NodeJS.ErrnoException, timeoutMs: number): string {
  if (err instanceof TargetRefused) return err.message;
  if (err.code === "ETIMEDOUT_WEBHOOK") return `No answer within ${timeoutMs / 1000} seconds.`;
  if (err.code === "ECONNREFUSED") return "The connection was refused.";
  if (err.code === "ENOTFOUND") return "The endpoint's host name could not be found.";
  if (typeof err.code === "string" && err.code.startsWith("ERR_TLS") || /certificate/i.test(err.message)) return "The endpoint's TLS certificate could not be verified.";
  return `The request failed (${err.code ?? "connection error"}).`;
}

export async function postWebhook(target: string, headers: Record<string, string>, body: string, opts: { policy: TargetPolicy; timeoutMs: number }): Promise<AttemptResult> {
  const url = new URL(target);
  try {
    await checkHost(url.hostname, opts.policy);
  } catch (e) {
    return failed(e instanceof TargetRefused ? e.message : "The endpoint's address could not be checked.");
  }
  // The CommonJS module, not an ESM import: importing node:http as a module reads every export,
  // and its WebSocket getters load Node's bundled fetch client (undici), HTTP/2 and zlib, about
  // 10 MB this request never uses.
  const { request: send } = process.getBuiltinModule(url.protocol === "https:" ? "node:https" : "node:http");
  return new Promise((resolve) => {
    let settled = false;
    const finish = (r: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(r);
    };
    const req = send(url, {
      method: "POST",
      lookup: guardedLookup(opts.policy) as never,
      headers: { ...headers, "content-type": "application/json", "content-length": String(Buffer.byteLength(body)), "user-agent": "permits-webhooks/1" },
    });
    const timer = setTimeout(() => req.destroy(Object.assign(new Error("timeout"), { code: "ETIMEDOUT_WEBHOOK" })), opts.timeoutMs);
    req.on("error", (err: NodeJS.ErrnoException) => finish(failed(networkError(err, opts.timeoutMs))));
    req.on("response", (res) => {
      const decoder = new StringDecoder("utf8");
      let kept = 0;
      let text = "";
      // PostgreSQL's text cannot hold U+0000: a NUL in an answer is kept as U+FFFD on both databases.
      const done = () => finish(outcome(res, text.replaceAll("\u0000", "\uFFFD")));
      res.on("data", (chunk: Buffer) => {
        const take = chunk.subarray(0, EXCERPT_BYTES - kept);
        kept += take.length;
        text += decoder.write(take);
        if (kept >= EXCERPT_BYTES) done();
      });
      res.on("end", done);
      res.on("error", done);
    });
    req.end(body);
  });
}
