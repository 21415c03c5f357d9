// The error catalogue: each code the OpenAPI document lists is what its kind answers on its surface.
import { expect, it } from "vitest";
import { ERROR_TEXT, Problem } from "./problems.js";

it("lists each public error code with the kind that answers it on its surface", () => {
  const mismatched = Object.entries(ERROR_TEXT)
    .filter(([code, { kind, surface }]) => new Problem(kind, "").code(surface) !== code)
    .map(([code, { kind, surface }]) => `${code}: ${kind} answers ${new Problem(kind, "").code(surface)} on ${surface}`);
  // The one listed code no body carries: a conflict is answered as invalid_request, with 409.
  expect(mismatched).toEqual(["idempotency_conflict: idempotency_conflict answers invalid_request on stormwater"]);
  expect(new Problem(ERROR_TEXT.idempotency_conflict.kind, "").status("stormwater")).toBe(409);
  expect(Object.keys(ERROR_TEXT).filter((code) => ERROR_TEXT[code].surface === "nwp")).toEqual([
    "malformed_json",
    "missing_api_key",
    "invalid_api_key",
    "upgrade_required",
    "batch_too_large",
    "rate_limit_exceeded",
    "entitlement_check_unavailable",
    "internal_error",
  ]);
});
