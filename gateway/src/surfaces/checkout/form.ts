// Checkout's requests and answers at the HTTP edge: form or JSON bodies as string fields, the
// query, where this server is, whether the caller is this machine, and 303-or-JSON answers.
import accepts from "accepts";
import type { FastifyReply, FastifyRequest } from "fastify";
import { isLoopback } from "@permits/rpc";
import type { AppDeps } from "../../deps.js";
import { Problem } from "../../http/problems.js";

export const HTML = "text/html; charset=utf-8";

/** The body of a form post (urlencoded) or a JSON one, as string fields. */
export function formFields(req: FastifyRequest): Record<string, string> {
  const raw = req.body instanceof Buffer ? req.body.toString("utf8") : "";
  const type = String(req.headers["content-type"] ?? "");
  if (type.startsWith("application/json")) {
    let v: unknown;
    try {
      v = JSON.parse(raw);
    } catch {
      throw new Problem("invalid_json", "The request body is not valid JSON.");
    }
    if (typeof v !== "object" || v === null || Array.isArray(v)) throw new Problem("invalid_request", "The body must be a JSON object.");
    return Object.fromEntries(Object.entries(v).filter(([, x]) => typeof x === "string")) as Record<string, string>;
  }
  return Object.fromEntries(new URLSearchParams(raw));
}

export function required(fields: Record<string, string>, name: string): string {
  const v = fields[name]?.trim();
  if (!v) throw new Problem("invalid_request", `${name} is required.`, { fields: [{ field: name, message: "required" }] });
  return v;
}

export function queryParam(req: FastifyRequest, name: string): string {
  const v = (req.query as Record<string, unknown>)[name];
  if (typeof v !== "string" || v === "") throw new Problem("invalid_request", `The query parameter ${name} is required.`, { fields: [{ field: name, message: "required" }] });
  return v;
}

/** PUBLIC_URL when set; otherwise this request's own origin (Host, and the proxy's protocol when trusted). */
export function baseUrl(deps: AppDeps, req: FastifyRequest): string {
  const configured = deps.config.PUBLIC_URL as string | undefined;
  return configured ? configured.replace(/\/$/, "") : `${req.protocol}://${req.host}`;
}

/** A request that came through a proxy, or from another machine, never reaches the local pages. */
export function fromThisMachine(req: FastifyRequest): boolean {
  return isLoopback(req.socket.remoteAddress?.replace(/^::ffff:/, "") ?? "") && req.headers["x-forwarded-for"] === undefined && req.headers.forwarded === undefined;
}

export const noStore = (reply: FastifyReply) => reply.header("cache-control", "no-store").header("referrer-policy", "no-referrer");

/** Whether the caller asked for JSON rather than a page. */
export const wantsJson = (req: FastifyRequest) => accepts(req.raw).type(["html", "json"]) === "json";

/** 200 JSON naming where to go, for a caller that asks for JSON; 303 there for a browser's form. */
export function goTo(req: FastifyRequest, reply: FastifyReply, location: string, data: Record<string, string>) {
  reply.header("cache-control", "no-store");
  if (wantsJson(req)) return reply.send({ data, request_id: req.id });
  return reply.code(303).header("location", location).send();
}

