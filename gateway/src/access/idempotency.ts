// Idempotency-Key on POST /api/v1/determine (document 1), after Stripe's semantics: the first
// response to (key holder, Idempotency-Key) is stored for 24 hours and replayed byte for byte,
// unbilled; the same key with another body is refused; concurrent duplicates compute once.
import { createHash } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { IdempotencyState } from "@permits/proto/ratelimit/v1/ratelimit";
import type { AppDeps } from "../deps.js";
import { Problem } from "../http/problems.js";
import { serializeBody } from "../http/public-json.js";

export const MAX_IDEMPOTENCY_KEY = 255;
const WAIT_FOR_FIRST_MS = 5000;
const POLL_MS = 20;

/** Key-order-independent JSON, so the same request written differently has one fingerprint. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v !== null && typeof v === "object") {
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  return JSON.stringify(v) ?? "null";
}

/**
 * Runs `compute` (which returns the response body) under the caller's Idempotency-Key when there
 * is one and the caller holds a key; otherwise just runs it. Metering happens here for keyed
 * idempotent calls, and only when the request is computed rather than replayed.
 */
export async function withIdempotency(deps: AppDeps, req: FastifyRequest, reply: FastifyReply, compute: () => Promise<unknown>): Promise<unknown> {
  const key = req.headers["idempotency-key"];
  const scope = req.principal?.keyId;
  if (key === undefined || scope === undefined) return compute();
  if (typeof key !== "string" || key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY) {
    const refusal = new Problem("invalid_request", `The Idempotency-Key header must be 1 to ${MAX_IDEMPOTENCY_KEY} characters.`, { details: { header: "Idempotency-Key", max_length: MAX_IDEMPOTENCY_KEY } });
    throw await reply.withStanding(refusal);
  }
  const fingerprint = createHash("sha256").update(`${req.method} ${req.routeOptions.url}\n${canonical(req.body)}`).digest("hex");
  const { ratelimit } = deps.clients;
  // A real wait, so measured on the monotonic clock rather than the (settable) domain clock.
  const waitUntil = performance.now() + WAIT_FOR_FIRST_MS;
  for (;;) {
    const begun = await ratelimit.beginIdempotent({ scope, key, fingerprint });
    switch (begun.state) {
      case IdempotencyState.REPLAY: {
        const stored = begun.stored!;
        // A replay spends nothing; its rate headers say where the caller stands now.
        await reply.writeStanding();
        reply.header("idempotent-replayed", "true");
        deps.instruments?.replayed();
        for (const [k, v] of Object.entries(stored.headers)) reply.header(k, v);
        return reply.code(stored.status).send(Buffer.from(stored.body));
      }
      case IdempotencyState.MISMATCH:
        throw await reply.withStanding(new Problem("invalid_request", "This Idempotency-Key was already used with a different request body; use a new key for a new request.", { details: { header: "Idempotency-Key" } }));
      case IdempotencyState.IN_FLIGHT:
        // The first request with this key is still computing: wait for its answer to replay it.
        if (performance.now() > waitUntil) {
          const busy = new Problem("idempotency_conflict", "A request with this Idempotency-Key is still in progress; retry shortly.", { headers: { "retry-after": "1" }, details: { header: "Idempotency-Key" } });
          throw await reply.withStanding(busy);
        }
        await new Promise((r) => setTimeout(r, POLL_MS));
        continue;
      case IdempotencyState.CLAIMED:
        return computeAndStore(deps, req, reply, { scope, key, fingerprint }, compute);
      default:
        throw new Problem("internal", "The idempotency record could not be read.");
    }
  }
}

async function computeAndStore(deps: AppDeps, req: FastifyRequest, reply: FastifyReply, id: { scope: string; key: string; fingerprint: string }, compute: () => Promise<unknown>) {
  const { ratelimit } = deps.clients;
  let body: Buffer;
  try {
    await reply.meter();
    body = serializeBody(await compute());
  } catch (e) {
    // Refused, invalid or failed requests are not stored: the caller may retry with the same key.
    await ratelimit.releaseIdempotent({ scope: id.scope, key: id.key }).catch(() => undefined);
    throw e;
  }
  const contentType = "application/json; charset=utf-8";
  await ratelimit.completeIdempotent({ ...id, response: { status: 200, body, headers: { "content-type": contentType } } });
  return reply.code(200).type(contentType).send(body);
}
