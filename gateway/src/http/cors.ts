// Browsers may call every route from any origin and read every header a caller needs.
import fp from "fastify-plugin";
import cors from "@fastify/cors";

/** Headers a browser may read: every rate, quota, tier and request-id header. */
export const EXPOSED_HEADERS = [
  "X-Request-Id",
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
  "X-Quota-Limit",
  "X-Quota-Used",
  "X-Quota-Remaining",
  "X-Service-Tier",
  "RateLimit-Policy",
  "RateLimit",
  "Retry-After",
  "Idempotent-Replayed",
  "ETag",
  "Allow",
];

const ALLOWED_HEADERS = ["Authorization", "X-API-Key", "Content-Type", "Idempotency-Key", "X-Request-Id", "Mcp-Protocol-Version", "traceparent", "tracestate"];

export const crossOrigin = fp(
  async (app) => {
    // strictPreflight off: an OPTIONS without Origin is not a CORS preflight, and gets the
    // ordinary answer instead of a text/plain 400.
    await app.register(cors, { origin: "*", strictPreflight: false, exposedHeaders: EXPOSED_HEADERS, allowedHeaders: ALLOWED_HEADERS, maxAge: 600 });
  },
  { name: "cross-origin" },
);
