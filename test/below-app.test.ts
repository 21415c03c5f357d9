// Answers no route handler writes, still in the contract: requests Node's HTTP parser refuses,
// undecodable URLs, OPTIONS without Origin, requests arriving while the gateway drains, and
// clients that go away mid-body (not an error-level log line).
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generousTiersFile, startGatewayProcess, type GatewayProcess } from "./support/processes.js";
import { startEmbedded } from "./support/embedded.js";
import { isAnswer, sendRaw, type RawAnswer } from "./support/raw-http.js";

let gateway: GatewayProcess;
let port: number;
beforeAll(async () => {
  gateway = await startGatewayProcess({ LOG_LEVEL: "info", TIERS_FILE: generousTiersFile() });
  port = gateway.port;
}, 30_000);
afterAll(() => gateway?.stop());

/** Sends bytes as they are and reads the first answer. */
async function raw(request: string | Buffer): Promise<RawAnswer> {
  const a = await sendRaw(port, request);
  if (!isAnswer(a)) throw new Error(`no answer: ${a.failure} (${a.detail})`);
  return a;
}

function expectStormwaterError(a: RawAnswer, status: number, code: string) {
  expect(a.status).toBe(status);
  expect(a.headers["content-type"]).toMatch(/^application\/json/);
  const body = JSON.parse(a.body);
  expect(body.error.code).toBe(code);
  expect(body.request_id).toMatch(/^req_/);
  expect(a.headers["x-request-id"]).toBe(body.request_id);
}

describe("requests Node's HTTP parser refuses", () => {
  it("a control character in a header: 400 in document 1's vocabulary, with a request id", async () => {
    expectStormwaterError(await raw("GET /api/v1/jurisdictions HTTP/1.1\r\nHost: x\r\nX-Odd: a\x01b\r\n\r\n"), 400, "invalid_request");
  });

  it("Content-Length with Transfer-Encoding, and a 20-digit Content-Length", async () => {
    expectStormwaterError(await raw("POST /api/v1/determine HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"), 400, "invalid_request");
    expectStormwaterError(await raw("POST /api/v1/determine HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n"), 400, "invalid_request");
  });

  it("on a document 2 path: document 2's vocabulary", async () => {
    const a = await raw("POST /api/v1/determine/nwp HTTP/1.1\r\nHost: x\r\nX-Odd: a\x01b\r\n\r\n");
    expect(a.status).toBe(400);
    const body = JSON.parse(a.body);
    expect(body.error.code).toBe("invalid_request");
    expect(body.error.requestId).toBe(a.headers["x-request-id"]);
  });

  it("oversized headers: 431 in the vocabulary", async () => {
    expectStormwaterError(await raw(`GET /api/v1 HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`), 431, "invalid_request");
  });

  it("a client still sending its body reads the refusal every time, not a reset (2 MB after a bad header, twenty times each)", async () => {
    const body = "x".repeat(2_000_000);
    const answers: (number | string)[] = [];
    for (const header of ["X-Odd: a\rb", `X-Big: ${"a".repeat(48_000)}`]) {
      for (let i = 0; i < 20; i++) {
        const a = await sendRaw(port, `POST /api/v1/determine HTTP/1.1\r\nHost: x\r\n${header}\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
        answers.push(isAnswer(a) ? a.status : a.failure);
      }
    }
    expect(answers).toEqual([...Array(20).fill(400), ...Array(20).fill(431)]);
  }, 30_000);

  it("an answer given before the body is read (a refused key on the batch route) waits for the body, not a reset (6 MB, twenty times)", async () => {
    const body = `{"projects":["${"x".repeat(6_000_000)}"]}`;
    const answers: (number | string)[] = [];
    for (let i = 0; i < 20; i++) {
      const a = await sendRaw(port, `POST /api/v1/determine/batch HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Api-Key: svc_live_forged\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
      answers.push(isAnswer(a) ? a.status : a.failure);
    }
    expect(answers).toEqual(Array(20).fill(401));
  }, 30_000);
});

describe("URLs and methods Fastify answers itself", () => {
  it("bad percent-encoding: 400 invalid_request with a request id and CORS", async () => {
    for (const p of ["/api/v1/jurisdictions/%E0%A4%A", "/api/v1/jurisdictions/%ZZ"]) {
      const a = await raw(`GET ${p} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      expectStormwaterError(a, 400, "invalid_request");
      expect(a.headers["access-control-allow-origin"]).toBe("*");
    }
  });

  it("OPTIONS without Origin is not answered with a text/plain 400", async () => {
    const a = await raw("OPTIONS /api/v1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expect(a.status).not.toBe(400);
    expect(a.headers["x-request-id"]).toMatch(/^req_/);
  });
});

describe("clients that go away", () => {
  it("a body cut off mid-way is not logged as an internal error", async () => {
    await new Promise<void>((resolve) => {
      const socket = net.connect(port, "127.0.0.1", () => {
        socket.write("POST /api/v1/determine HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"state\":");
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 100);
      });
    });
    await new Promise((r) => setTimeout(r, 300));
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    expect(gateway.proc.output()).not.toMatch(/internal error/);
  });
});

describe("draining", () => {
  it("finishes the request in flight, and answers one arriving after close began with the surface's 503 and Retry-After", async () => {
    const e = await startEmbedded();
    await e.app.listen({ host: "127.0.0.1", port: 0 });
    const { port: p } = e.app.server.address() as net.AddressInfo;
    const socket = net.connect(p, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (c) => chunks.push(c));
    const closed = new Promise((r) => socket.on("close", r));
    const body = JSON.stringify({ state: "TX", activity: "construction", acres: 5 });
    // A request in flight: its body is not all sent yet.
    socket.write(`POST /api/v1/determine HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`);
    await new Promise((r) => setTimeout(r, 50));
    const closing = e.app.close();
    await new Promise((r) => setTimeout(r, 50));
    // The rest of its body, then a second request on the same connection.
    socket.write(`${body.slice(10)}GET /api/v1/jurisdictions HTTP/1.1\r\nHost: x\r\n\r\n`);
    await Promise.race([closed, new Promise((r) => setTimeout(r, 3000))]);
    socket.destroy();
    await closing;
    await e.close().catch(() => undefined);
    const text = Buffer.concat(chunks).toString("utf8");
    const answers = text.split(/(?=HTTP\/1\.1 \d{3} )/);
    expect(answers.map((a) => Number(a.slice(9, 12)))).toEqual([200, 503]);
    expect(answers[1]).toMatch(/\r\nretry-after: 1\r\n/i);
    expect(answers[1]).toMatch(/"code":"internal"/);
    expect(answers[1]).toMatch(/\r\nx-request-id: req_/i);
  });
});

describe("an oversized body", () => {
  it("is answered 413 in the contract every time, not with a connection reset (3 MB, twenty times)", async () => {
    const body = Buffer.alloc(3 * 1024 * 1024, "a");
    const statuses: (number | string)[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/determine`, { method: "POST", headers: { "content-type": "application/json" }, body }).catch((e: Error) => e);
      if (res instanceof Error) {
        statuses.push(`${res.message} ${(res.cause as Error | undefined)?.message ?? ""}`);
        continue;
      }
      const json = (await res.json()) as { error: { code: string } };
      statuses.push(json.error.code === "payload_too_large" ? res.status : `${res.status} ${json.error.code}`);
    }
    expect(JSON.stringify(statuses)).toBe(JSON.stringify(Array(20).fill(413)));
  }, 30_000);
});
