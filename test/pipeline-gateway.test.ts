// The embedded gateway's calls run its client chain and each service's chain, as a remote call
// would (the remote paths are pinned in packages/rpc/src/chain/pipeline.test.ts).
import { afterAll, beforeAll, expect, it } from "vitest";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { startEmbedded, type Embedded } from "./support/embedded.js";

const seen: string[] = [];
const recorder = (end: string): Interceptor => (next) => async (req) => {
  try {
    const res = await next(req);
    seen.push(`${end} ${req.method.name} ok`);
    return res;
  } catch (e) {
    seen.push(`${end} ${req.method.name} ${Code[ConnectError.from(e).code]}`);
    throw e;
  }
};

let e: Embedded;
beforeAll(async () => {
  e = await startEmbedded({}, { interceptors: { client: [recorder("client")], service: [recorder("service")] } });
});
afterAll(() => e?.close());

it("runs the client and the service chain once for each call a public request makes", async () => {
  seen.length = 0;
  const res = await e.app.inject({ method: "POST", url: "/api/v1/determine", payload: { state: "TX", activity: "construction", acres: 5 } });
  expect(res.statusCode).toBe(200);
  // Who is calling, the rate decision, then the determination; each seen by the service, then the client.
  expect(seen).toEqual(["service Authenticate ok", "client Authenticate ok", "service Decide ok", "client Decide ok", "service Determine ok", "client Determine ok"]);
});

it("passes a service's refusal through both chains with its code", async () => {
  seen.length = 0;
  const res = await e.app.inject({ method: "POST", url: "/api/v1/determine", payload: { state: "TX", activity: "construction", acres: -5 } });
  expect(res.statusCode).toBe(400);
  expect(seen.slice(-2)).toEqual(["service Determine InvalidArgument", "client Determine InvalidArgument"]);
});
