// The fuzzer's judge, judged: each kind of broken answer is caught, and a good one passes.
import { describe, expect, it } from "vitest";
import { responseChecker } from "./invariants.js";

const check = responseChecker([
  { url: "/api/v1/determine", surface: "stormwater" },
  { url: "/api/v1/determine/nwp", surface: "nwp" },
  { url: "/api/v1/district/:code", surface: "nwp" },
]);
const json = "application/json; charset=utf-8";
const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
  status,
  headers: { "content-type": json, "x-request-id": "req_1", ...headers },
  body: typeof body === "string" ? body : JSON.stringify(body),
});
const doc1 = (code: string) => ({ error: { code, message: "m" }, request_id: "req_1" });
const doc2 = (code: string) => ({ error: { code, message: "m", requestId: "req_1" } });

describe("responseChecker", () => {
  it("takes the app's HTML refusal pages on /app and /, never a 5xx page, and no HTML refusal on the API", () => {
    const page = (status: number) => ({ status, headers: { "content-type": "text/html; charset=utf-8", "x-request-id": "req_1" }, body: "<!doctype html><h1>Form expired</h1>" });
    expect(check("/app/session", "POST", page(403))).toEqual([]);
    expect(check("/app/sites/x/records.csv", "GET", page(404))).toEqual([]);
    expect(check("/app/sites", "POST", page(500))).toEqual(["500: no 5xx but the documented 503"]);
    expect(check("/api/v1/determine", "POST", page(400))).toEqual(["400: the body is in neither error vocabulary (text/html; charset=utf-8)"]);
  });

  it("passes answers in the path's vocabulary", () => {
    expect(check("/api/v1/determine", "POST", answer(400, doc1("invalid_json")))).toEqual([]);
    expect(check("/api/v1/determine/nwp", "POST", answer(400, doc2("malformed_json")))).toEqual([]);
    expect(check("/api/v1/district/%ZZ", "GET", answer(404, doc2("not_found")))).toEqual([]);
    expect(check("/api/v1/determine/nwp", "POST", answer(503, doc2("entitlement_check_unavailable"), { "retry-after": "2" }))).toEqual([]);
    expect(check("/mcp", "POST", answer(400, { jsonrpc: "2.0", error: { code: -32700, message: "Parse error" }, id: null }))).toEqual([]);
  });

  it("catches the wrong vocabulary, an unknown code, a missing or mismatched request id", () => {
    expect(check("/api/v1/determine/nwp", "POST", answer(400, doc1("invalid_request")))).toEqual(["400 invalid_request: answered in document 1's vocabulary on a document 2 path"]);
    expect(check("/api/v1/determine", "POST", answer(400, doc1("FST_BAD")))).toEqual(['400: "FST_BAD" is not a code of document 1']);
    expect(check("/api/v1/determine", "POST", { ...answer(400, doc1("invalid_request")), headers: { "content-type": json } })).toEqual(["no X-Request-Id header", 'the body\'s request id "req_1" is not the header\'s undefined']);
    expect(check("/api/v1/determine", "POST", answer(400, { error: "Bad Request", message: "Client Error" }))).toEqual(["400: the body is in neither error vocabulary (application/json; charset=utf-8)"]);
    expect(check("/api/v1/determine", "POST", answer(400, { ...doc1("invalid_request"), error: { ...doc2("invalid_request").error } }))).toEqual([
      "400: the body is in neither error vocabulary (application/json; charset=utf-8)",
    ]);
  });

  it("catches 5xx other than the documented 503, a 503 without Retry-After, and exception text", () => {
    expect(check("/api/v1/determine", "POST", answer(500, doc1("internal")))).toEqual(["500: no 5xx but the documented 503"]);
    expect(check("/api/v1/determine", "POST", answer(503, doc1("internal")))).toEqual(["503 internal without Retry-After or outside the documented 503s"]);
    expect(check("/api/v1/determine", "POST", answer(400, { error: { code: "invalid_request", message: "TypeError: x is not a function" }, request_id: "req_1" }))).toEqual([
      "exception text in the body: TypeError",
    ]);
    expect(check("/api/v1/determine", "GET", answer(200, "{nope"))).toEqual(["Content-Type says JSON but the body does not parse"]);
  });
});
