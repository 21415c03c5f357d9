// A fault of the server's own configuration (a tier with no rate policy) is a 500 in the route's
// vocabulary with a generic message, logged with the details; never a 400, never internal names.
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmbedded, type Embedded } from "./support/embedded.js";
import { editedTiersFile } from "./support/tiers.js";

const tiersWithout = (...ids: string[]) => editedTiersFile((policies) => policies.filter((p) => !ids.includes(p.id)));

describe("a tier with no rate policy", () => {
  let gw: Embedded;
  let log = "";
  beforeAll(async () => {
    const stream = new PassThrough();
    stream.on("data", (b: Buffer) => (log += b.toString()));
    gw = await startEmbedded({ TIERS_FILE: tiersWithout("stormwater.anonymous", "nwp.sandbox"), LOG_LEVEL: "error" }, { logStream: stream });
  }, 60_000);
  afterAll(async () => gw?.close());

  it("document 1: 500 internal, a generic message, the details in the log only", async () => {
    const res = await gw.app.inject({ method: "GET", url: "/api/v1/jurisdictions" });
    expect(res.statusCode).toBe(500);
    const body = JSON.parse(res.body);
    expect(body.error.code).toBe("internal");
    expect(typeof body.request_id).toBe("string");
    expect(res.body).not.toMatch(/stormwater\.anonymous|policy "|tier table|InvalidArgument/);
    await new Promise((r) => setTimeout(r, 50));
    expect(log).toContain("configuration fault");
    expect(log).toContain("stormwater.anonymous");
  });

  it("the usage read-out under the same missing policy: 500 internal, never a 400", async () => {
    const res = await gw.app.inject({ method: "GET", url: "/api/v1/usage" });
    expect(res.statusCode).toBe(500);
    expect(JSON.parse(res.body).error.code).toBe("internal");
  });

  it("document 2: 500 internal_error in document 2's vocabulary", async () => {
    const res = await gw.app.inject({ method: "GET", url: "/api/v1/activity", headers: { "x-api-key": "svc_sandbox_public" } });
    expect(res.statusCode).toBe(500);
    const body = JSON.parse(res.body);
    expect(body.error.code).toBe("internal_error");
    expect(typeof body.error.requestId).toBe("string");
    expect(res.body).not.toMatch(/nwp\.sandbox|policy "/);
  });
});
