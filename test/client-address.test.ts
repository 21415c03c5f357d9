// Client addresses nobody can forge (issue 31, section 2): with TRUST_PROXY naming the proxies,
// the client is the rightmost X-Forwarded-For address not among them, on both surfaces and
// through the MCP transport; `true` is refused at start; keys are trimmed of ASCII whitespace only.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LightMyRequestResponse } from "fastify";
import { parseTrustProxy, readGatewayConfig } from "@permits/gateway";
import { startEmbedded, type Embedded } from "./support/embedded.js";

const SANDBOX = "svc_sandbox_public";
const PROXY = "10.0.3.7";
const SITE = JSON.stringify({ state: "NM", activity: "construction", acres: 3 });
const PROJECT = JSON.stringify({ state: "CA", district: "SPK", activity: "residential-development", aquaticResourceType: "wetland", permanentImpactAcres: 0.3 });
const JSON_TYPE = { "content-type": "application/json" };

describe("TRUST_PROXY values", () => {
  it("refuses true with a message saying what to set", () => {
    expect(() => parseTrustProxy("true")).toThrow(/true is refused: it takes the leftmost X-Forwarded-For address.*set TRUST_PROXY to the addresses or CIDRs of your proxies.*or to the number of proxy hops/);
    expect(() => readGatewayConfig({ TRUST_PROXY: "TRUE" })).toThrow(/TRUST_PROXY.*true is refused/);
  });
  it("refuses names and ranges that are not addresses (proxy-addr's uniquelocal trusts every private network)", () => {
    expect(() => parseTrustProxy("uniquelocal")).toThrow(/"uniquelocal" is not an IP address or CIDR/);
    expect(() => parseTrustProxy("10.0.0.1, the proxy")).toThrow(/"the proxy" is not an IP address or CIDR/);
    expect(() => parseTrustProxy("10.0.0.0/40")).toThrow(/TRUST_PROXY to the addresses/);
  });
  it("reads off, a list of addresses and CIDRs, and a hop count", () => {
    expect(parseTrustProxy("")).toBe(false);
    expect(parseTrustProxy("false")).toBe(false);
    expect(parseTrustProxy("0")).toBe(false);
    const list = parseTrustProxy("10.0.3.7, 192.168.5.0/30") as (a: string, i: number) => boolean;
    expect(["10.0.3.7", "10.0.3.8", "192.168.5.3", "192.168.5.4"].map((a) => list(a, 0))).toEqual([true, false, true, false]);
    const hops = parseTrustProxy("2") as (a: string, i: number) => boolean;
    expect([0, 1, 2, 3].map((i) => hops("203.0.113.1", i))).toEqual([true, true, false, false]);
  });
});

describe("the client address behind trusted proxies", () => {
  let listed: Embedded;
  let counted: Embedded;
  beforeAll(async () => {
    [listed, counted] = await Promise.all([startEmbedded({ TRUST_PROXY: `${PROXY},10.0.4.0/24` }), startEmbedded({ TRUST_PROXY: "2" })]);
  });
  afterAll(async () => Promise.all([listed?.close(), counted?.close()]));

  const determine = (gw: Embedded, xff: string | undefined, remoteAddress = PROXY, headers: Record<string, string> = {}) =>
    gw.app.inject({ method: "POST", url: "/api/v1/determine", payload: SITE, headers: { ...JSON_TYPE, ...headers, ...(xff === undefined ? {} : { "x-forwarded-for": xff }) }, remoteAddress });
  const statuses = (rs: LightMyRequestResponse[]) => rs.map((r) => r.statusCode);

  it("stormwater: a new spoofed leftmost address on each of 12 requests admits 4 (the anonymous minute), not 12", async () => {
    const rs: LightMyRequestResponse[] = [];
    for (let i = 1; i <= 12; i++) rs.push(await determine(listed, `198.18.0.${i}, 203.0.113.50`));
    expect(statuses(rs)).toEqual([200, 200, 200, 200, ...Array(8).fill(429)]);
    expect(rs[3].headers["x-ratelimit-remaining"]).toBe("0");
  });

  it("stormwater: requests naming another client's address lock out nobody but the sender", async () => {
    for (let i = 0; i < 4; i++) await determine(listed, "203.0.113.9, 203.0.113.66");
    expect((await determine(listed, "203.0.113.9, 203.0.113.66")).statusCode).toBe(429);
    // The client actually at 203.0.113.9 (appended by the proxy) is untouched.
    const real = await determine(listed, "203.0.113.9");
    expect(real.statusCode).toBe(200);
    expect(real.headers["x-ratelimit-remaining"]).toBe("3");
  });

  it("walks back through every listed proxy (an address and a CIDR) to the first untrusted hop", async () => {
    const a = await determine(listed, "198.18.1.1, 203.0.113.70, 10.0.4.9");
    const b = await determine(listed, "203.0.113.70, 10.0.4.200");
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    expect([a.headers["x-ratelimit-remaining"], b.headers["x-ratelimit-remaining"]]).toEqual(["3", "2"]);
  });

  it("a client connecting directly (not from a listed proxy) is its socket address, whatever it writes", async () => {
    const rs: LightMyRequestResponse[] = [];
    for (let i = 1; i <= 5; i++) rs.push(await determine(listed, `203.0.113.${100 + i}`, "198.51.100.77"));
    expect(statuses(rs)).toEqual([200, 200, 200, 200, 429]);
  });

  it("a hop count trusts exactly that many hops: the address the outer proxy appended is the client", async () => {
    const a = await determine(counted, "198.18.2.1, 203.0.113.80, 10.9.9.9", "10.8.8.8");
    const b = await determine(counted, "198.18.2.2, 203.0.113.80, 10.7.7.7", "10.6.6.6");
    expect([a.headers["x-ratelimit-remaining"], b.headers["x-ratelimit-remaining"]]).toEqual(["3", "2"]);
  });

  it("nwp (sandbox key): the per-IP hour is spent by the rightmost untrusted address only", async () => {
    const nwp = (xff: string) => listed.app.inject({ method: "POST", url: "/api/v1/determine/nwp", payload: PROJECT, headers: { ...JSON_TYPE, "x-api-key": SANDBOX, "x-forwarded-for": xff }, remoteAddress: PROXY });
    const remaining: unknown[] = [];
    for (let i = 1; i <= 3; i++) {
      const r = await nwp(`198.18.3.${i}, 203.0.113.90`);
      expect(r.statusCode).toBe(200);
      remaining.push(r.headers["x-ratelimit-remaining"]);
    }
    const other = await nwp("203.0.113.90, 203.0.113.91");
    expect([...remaining, other.headers["x-ratelimit-remaining"]]).toEqual(["24", "23", "22", "24"]);
  });

  it("MCP: tools/call is metered on the same address; spoofed chains share one anonymous bucket", async () => {
    let id = 0;
    const call = async (xff: string) => {
      const r = await listed.app.inject({
        method: "POST",
        url: "/mcp",
        headers: { ...JSON_TYPE, accept: "application/json, text/event-stream", "x-forwarded-for": xff },
        remoteAddress: PROXY,
        payload: JSON.stringify({ jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name: "determine_stormwater_permit", arguments: JSON.parse(SITE) } }),
      });
      expect(r.statusCode).toBe(200);
      const result = r.json().result as { isError?: boolean; content: { text: string }[] };
      return result.isError ? result.content[0].text.split(":")[0] : "ok";
    };
    const outcomes: string[] = [];
    for (let i = 1; i <= 6; i++) outcomes.push(await call(`198.18.4.${i}, 203.0.113.110`));
    expect(outcomes).toEqual(["ok", "ok", "ok", "ok", "rate_limited", "rate_limited"]);
    // REST from that client sees the same spent bucket; another client is untouched.
    expect((await determine(listed, "203.0.113.110")).statusCode).toBe(429);
    expect(await call("203.0.113.110, 203.0.113.111")).toBe("ok");
  });
});

describe("API keys are trimmed of ASCII whitespace only", () => {
  let gw: Embedded;
  beforeAll(async () => {
    gw = await startEmbedded({});
  });
  afterAll(async () => gw?.close());
  const nwp = (headers: Record<string, string>) => gw.app.inject({ method: "POST", url: "/api/v1/determine/nwp", payload: PROJECT, headers: { ...JSON_TYPE, ...headers } });

  it("a key with a trailing no-break space (0xA0) is refused, in either header", async () => {
    for (const headers of [{ "x-api-key": `${SANDBOX}\u00a0` }, { authorization: `Bearer ${SANDBOX}\u00a0` }, { "x-api-key": `\u00a0${SANDBOX}` }]) {
      const r = await nwp(headers);
      expect(r.statusCode).toBe(401);
      expect(r.json().error.code).toBe("invalid_api_key");
    }
  });
  it("spaces and tabs around the key are trimmed", async () => {
    for (const headers of [{ "x-api-key": ` ${SANDBOX}\t` }, { authorization: `Bearer ${SANDBOX} ` }]) {
      const r = await nwp(headers);
      expect(r.statusCode).toBe(200);
      expect(r.headers["x-service-tier"]).toBe("sandbox");
    }
  });
});
