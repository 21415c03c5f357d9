import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { HealthCheckResponse_ServingStatus, Health } from "@permits/proto/grpc/health/v1/health";
import { createDirectTransport, directRoute } from "./direct-transport.js";
import { invalidArgument, badRequestOf, ViolationReason } from "@permits/rules";

describe("direct in-process transport", () => {
  it("calls the implementation with a handler context and returns its message", async () => {
    let seenHeader: string | null = null;
    const transport = createDirectTransport([
      directRoute(Health, {
        check(req, ctx) {
          seenHeader = ctx.requestHeader.get("x-request-id");
          ctx.responseHeader.set("x-served-by", "direct");
          return { status: req.service === "" ? HealthCheckResponse_ServingStatus.SERVING : HealthCheckResponse_ServingStatus.SERVICE_UNKNOWN };
        },
      }),
    ]);
    const client = createClient(Health, transport);
    let served: string | null = null;
    const res = await client.check({ service: "" }, { headers: { "x-request-id": "abc" }, onHeader: (h) => (served = h.get("x-served-by")) });
    expect(res.status).toBe(HealthCheckResponse_ServingStatus.SERVING);
    expect(seenHeader).toBe("abc");
    expect(served).toBe("direct");
  });

  it("keeps ConnectError codes and structured details", async () => {
    const transport = createDirectTransport([
      directRoute(Health, {
        check() {
          throw invalidArgument("bad", [{ field: "service", description: "nope", reason: ViolationReason.MALFORMED }]);
        },
      }),
    ]);
    const err = await createClient(Health, transport).check({}).catch((e) => e);
    expect(err).toBeInstanceOf(ConnectError);
    expect(err.code).toBe(Code.InvalidArgument);
    expect(badRequestOf(err)?.violations[0].field).toBe("service");
  });

  it("hides the text of unexpected exceptions behind Internal", async () => {
    const transport = createDirectTransport([directRoute(Health, { check() { throw new Error("secret stack detail"); } })]);
    const err = await createClient(Health, transport).check({}).catch((e) => e);
    expect(err.code).toBe(Code.Internal);
    expect(err.rawMessage).not.toContain("secret");
  });

  it("enforces deadlines", async () => {
    const transport = createDirectTransport([
      directRoute(Health, { check: () => new Promise((r) => setTimeout(() => r(create(HealthCheckResponseSchemaLike())), 500)) }),
    ]);
    const err = await createClient(Health, transport).check({}, { timeoutMs: 30 }).catch((e) => e);
    expect(err.code).toBe(Code.DeadlineExceeded);
  });

  it("answers Unimplemented for a method without an implementation", async () => {
    const err = await createClient(Health, createDirectTransport([])).check({}).catch((e) => e);
    expect(err.code).toBe(Code.Unimplemented);
  });
});

// The output schema, looked up through the method so the test does not depend on export names.
function HealthCheckResponseSchemaLike() {
  return Health.method.check.output;
}
