// The request log never carries a checkout session id, which shows a session's keys once.
import { describe, expect, it } from "vitest";
import { loggedUrl } from "./request-log.js";

describe("the request log's URL", () => {
  it("replaces a session_id value and keeps the rest", () => {
    expect(loggedUrl("/checkout/success?session_id=cs_test_abc123&x=1")).toBe("/checkout/success?session_id=[redacted]&x=1");
    expect(loggedUrl("/checkout/success?a=1&session_id=cs_test_abc123")).toBe("/checkout/success?a=1&session_id=[redacted]");
    expect(loggedUrl("/api/v1/requirements?state=TX")).toBe("/api/v1/requirements?state=TX");
  });
});
