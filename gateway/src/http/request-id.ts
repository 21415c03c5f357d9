import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";

// An incoming id of sane form is kept so callers can correlate; anything else is replaced.
const SANE = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdFor(req: IncomingMessage): string {
  const given = req.headers["x-request-id"];
  if (typeof given === "string" && SANE.test(given)) return given;
  // randomUUID draws from a buffered entropy pool: far cheaper per request than randomBytes.
  return `req_${randomUUID().replaceAll("-", "")}`;
}
