import { describe, expect, it } from "vitest";
import { Code, ConnectError } from "@connectrpc/connect";
import { breakerInterceptor, noAnswer } from "./breaker.js";

describe("the gateway's breaker on a remote service", () => {
  it("counts calls that waited out their deadline, never an answer the service chose nor a fast refusal", () => {
    expect(noAnswer(new ConnectError("deadline", Code.DeadlineExceeded))).toBe(true);
    expect(noAnswer(new ConnectError("connect ECONNREFUSED", Code.Unavailable))).toBe(false);
    expect(noAnswer(new ConnectError("key store down", Code.Unavailable, { "retry-after": "2" }))).toBe(false);
    expect(noAnswer(new ConnectError("bad", Code.InvalidArgument))).toBe(false);
    expect(noAnswer(new ConnectError("nope", Code.Unauthenticated))).toBe(false);
  });

  it("after the failures, answers Unavailable with Retry-After without calling the service", async () => {
    let calls = 0;
    const next = (async () => {
      calls++;
      throw new ConnectError("deadline", Code.DeadlineExceeded);
    }) as never;
    const call = breakerInterceptor("entitlement", { failures: 2, probeAfterMs: 3000 })(next) as (req: unknown) => Promise<unknown>;
    for (let i = 0; i < 2; i++) await expect(call({})).rejects.toMatchObject({ code: Code.DeadlineExceeded });
    const started = performance.now();
    const e = (await call({}).catch((x: unknown) => x)) as ConnectError;
    expect(performance.now() - started).toBeLessThan(20);
    expect(calls).toBe(2);
    expect(e.code).toBe(Code.Unavailable);
    expect(e.metadata.get("retry-after")).toBe("3");
    expect(e.rawMessage).toBe("The key check service is not answering. This is temporary and says nothing about the key; retry in 3 seconds.");
  });
});
