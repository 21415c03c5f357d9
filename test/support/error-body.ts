// The two error vocabularies (docs/using.md, "Errors"), read back by the suites that judge answers:
// document 1 `{"error":{"code","message",...},"request_id"}`, document 2
// `{"error":{"code","message","requestId",...}}`. A body carrying both request id fields is in
// neither vocabulary.

export type ErrorSurface = "stormwater" | "nwp";

export type ErrorBody = { surface: ErrorSurface; code: string; requestId: unknown } | { problem: string };

export function readErrorBody(body: unknown): ErrorBody {
  const b = (typeof body === "object" && body !== null ? body : {}) as { error?: { code?: unknown; message?: unknown; requestId?: unknown }; request_id?: unknown };
  const e = b.error;
  if (typeof e?.code !== "string" || typeof e.message !== "string") return { problem: "no error.code and error.message" };
  const doc1 = "request_id" in b;
  const doc2 = "requestId" in e;
  if (doc1 && doc2) return { problem: "carries both documents' request id fields" };
  if (doc1) return { surface: "stormwater", code: e.code, requestId: b.request_id };
  if (doc2) return { surface: "nwp", code: e.code, requestId: e.requestId };
  return { problem: "no request id field" };
}
