// GET /docs, the API reference page. Through inject(): served without a key, never metered,
// cacheable. In Debian's chromium (headless, through puppeteer-core): the page renders every
// operation of /api/openapi, loads nothing from any host but the gateway's, and logs no error.
// The screenshot it takes is saved to test-output/docs/reference.png.
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { AddressInfo } from "node:net";
import puppeteer, { type Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startEmbedded, type Embedded } from "./support/embedded.js";

import { CHROMIUM_PATH as CHROMIUM } from "./support/prerequisites.js";
const SCREENSHOT = path.resolve(import.meta.dirname, "../test-output/docs/reference.png");
const HTML = "text/html; charset=utf-8";
const RATE_HEADERS = ["x-ratelimit-limit", "x-ratelimit-remaining", "ratelimit", "ratelimit-policy", "x-service-tier"];

type OpenApi = { paths: Record<string, Record<string, { summary: string; tags: string[] }>> };

let gw: Embedded;
let base: string;
let browser: Browser | undefined;

beforeAll(async () => {
  gw = await startEmbedded();
  await gw.app.listen({ host: "127.0.0.1", port: 0 });
  base = `http://127.0.0.1:${(gw.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
});

const get = (url: string, headers: Record<string, string> = {}) => gw.app.inject({ method: "GET", url, headers });

/** The bundle's URL as the page names it. */
async function scriptUrl(): Promise<string> {
  const src = /<script src="([^"]+)"><\/script>/.exec((await get("/docs")).body)?.[1];
  expect(src).toMatch(/^\/docs\/js\/scalar\.js\?v=[\w-]{27}$/);
  return src!;
}

describe("GET /docs over inject()", () => {
  it("answers 200 HTML naming the served document and the bundle, with no key and no rate headers, at /docs and /docs/", async () => {
    for (const url of ["/docs", "/docs/"]) {
      const res = await get(url);
      expect(res.statusCode).toBe(200);
      expect(res.headers["content-type"]).toBe(HTML);
      expect(res.headers["cache-control"]).toBe("public, max-age=300");
      expect(res.headers.etag).toMatch(/^"[\w-]{27}"$/);
      expect(res.headers["x-request-id"]).toBeTruthy();
      for (const h of RATE_HEADERS) expect(res.headers[h]).toBeUndefined();
      expect(res.body).toContain("<title>API reference - Permit Determination API</title>");
      expect(res.body).toContain('"url": "/api/openapi"');
      expect(res.body).toContain('"withDefaultFonts": false');
      expect(res.body).not.toMatch(/https?:\/\//);
    }
  });

  it("ignores keys, even a malformed one, and answers a Host header that is no URL host", async () => {
    for (const headers of [{ authorization: "Bearer not-a-key" }, { authorization: "Basic abc" }, { "x-api-key": "svc_live_forged" }, { host: "a b" }]) {
      const res = await get("/docs", headers);
      expect(res.statusCode).toBe(200);
      expect(res.headers["content-type"]).toBe(HTML);
    }
  });

  it("spends nothing from the caller's windows, where a metered call does", async () => {
    const used = async () => (await get("/api/v1/usage")).json().data.windows.map((w: { used: number }) => w.used) as number[];
    const before = await used();
    const script = await scriptUrl();
    for (const url of ["/docs", "/docs/", script, "/docs"]) expect((await get(url)).statusCode).toBe(200);
    expect(await used()).toEqual(before);
    expect((await get("/api/v1/jurisdictions")).statusCode).toBe(200);
    expect(await used()).toEqual(before.map((n) => n + 1));
  });

  it("serves the bundle from memory as JavaScript, cached for good under its digest URL, and 304s both", async () => {
    const src = await scriptUrl();
    const js = await get(src);
    expect(js.statusCode).toBe(200);
    expect(js.headers["content-type"]).toBe("application/javascript; charset=utf-8");
    expect(js.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(js.headers.etag).toBe(`"${src.split("?v=")[1]}"`);
    expect(js.body.length).toBeGreaterThan(1_000_000);
    expect(js.body).toContain("createApiReference");
    for (const h of RATE_HEADERS) expect(js.headers[h]).toBeUndefined();
    const again = await get(src, { "if-none-match": js.headers.etag as string });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe("");
    const page = await get("/docs");
    expect((await get("/docs", { "if-none-match": page.headers.etag as string })).statusCode).toBe(304);
    const head = await gw.app.inject({ method: "HEAD", url: "/docs" });
    expect(head.statusCode).toBe(200);
    expect(head.headers["content-type"]).toBe(HTML);
  });

  it("is not an API route: another method or a path below it is document 1's 404, and the index and OpenAPI leave it out", async () => {
    for (const [method, url] of [["POST", "/docs"], ["GET", "/docs/nope"], ["GET", "/docs/js/other.js"]] as const) {
      const res = await gw.app.inject({ method, url, payload: method === "POST" ? "{}" : undefined });
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe("not_found");
      expect(res.json().request_id).toBe(res.headers["x-request-id"]);
    }
    const discovery = (await get("/api/v1")).json().data;
    expect(discovery.docs).toBe("/docs"); // linked from the index, as a page
    const index = discovery.endpoints.map((e: { path: string }) => e.path);
    expect(index).toContain("/api/v1/determine");
    expect(index.filter((p: string) => p.startsWith("/docs"))).toEqual([]);
    expect(Object.keys(((await get("/api/openapi")).json() as OpenApi).paths).filter((p) => p.startsWith("/docs"))).toEqual([]);
  });
});

describe.skipIf(!inject("prerequisites").chromium)("GET /docs in chromium", () => {
  it("lists every operation of both surfaces, offline, with a clean console, and saves a screenshot", async () => {
    const doc = (await get("/api/openapi")).json() as OpenApi;
    const operations = Object.entries(doc.paths).flatMap(([p, ops]) => Object.entries(ops).map(([method, op]) => ({ endpoint: `${method.toUpperCase()} ${p}`, summary: op.summary, tag: op.tags[0] })));
    // Both surfaces, the discovery documents and checkout, read from the document itself.
    expect(new Set(operations.map((o) => o.tag))).toEqual(new Set(["Stormwater", "Section 404 nationwide permits (NWP)", "Discovery", "Checkout"]));
    expect(operations.map((o) => o.endpoint)).toEqual(expect.arrayContaining(["POST /api/v1/determine", "POST /api/v1/determine/nwp", "GET /api/v1/state/{code}/401"]));

    browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    const offHost: string[] = [];
    const problems: string[] = [];
    await page.setRequestInterception(true);
    page.on("request", (req) => {
      const url = new URL(req.url());
      if (url.protocol === "data:" || url.origin === base) return void req.continue();
      offHost.push(req.url());
      void req.abort("blockedbyclient");
    });
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(`console: ${m.text()}`);
    });
    page.on("pageerror", (e) => problems.push(`page: ${String(e)}`));
    page.on("response", (r) => {
      if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
    });

    const res = await page.goto(`${base}/docs`, { waitUntil: "networkidle0", timeout: 15_000 });
    expect(res?.status()).toBe(200);
    // Each tag's card lists its operations (method and path); the operations' own sections render lazily.
    await page.waitForFunction((n: number) => document.querySelectorAll(".endpoint .endpoint-path").length >= n, { timeout: 10_000 }, operations.length);
    const listed = await page.$$eval(".endpoint", (els) => els.map((e) => `${e.querySelector(".endpoint-method")?.textContent?.trim().toUpperCase()} ${e.querySelector(".endpoint-path")?.textContent?.trim()}`));
    expect([...listed].sort()).toEqual(operations.map((o) => o.endpoint).sort());
    const text = await page.evaluate(() => document.body.innerText);
    expect(operations.filter((o) => !text.includes(o.summary)).map((o) => o.summary)).toEqual([]);
    expect(text).toContain("Permit Determination API");

    mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT });
    expect(readFileSync(SCREENSHOT).subarray(1, 4).toString()).toBe("PNG");

    expect(offHost).toEqual([]);
    expect(problems).toEqual([]);
  }, 30_000);

  it("presses Test Request on the stormwater determination: the example is sent with the sandbox key and answered 200", async () => {
    browser ??= await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    await page.goto(`${base}/docs`, { waitUntil: "networkidle0", timeout: 15_000 });
    const text = await page.evaluate(() => document.body.innerText);
    // The body is described once; the sandbox key is on the page before anything is pressed.
    expect(text.split("One of acres or disturbedAcres is required.").length - 1).toBe(1);
    expect(text).toContain("Try it now with the public sandbox key svc_sandbox_public");

    const pressButton = async (label: RegExp) => {
      await page.waitForFunction((src: string) => [...document.querySelectorAll("button")].some((b) => new RegExp(src).test(b.textContent!.trim())), { timeout: 10_000 }, label.source);
      await page.evaluate((src: string) => [...document.querySelectorAll("button")].find((b) => new RegExp(src).test(b.textContent!.trim()))!.click(), label.source);
    };
    await pressButton(/^Test Request\(post \/api\/v1\/determine\)$/);
    const sent = page.waitForRequest((r) => r.url() === `${base}/api/v1/determine` && r.method() === "POST", { timeout: 10_000 });
    const answered = page.waitForResponse((r) => r.url() === `${base}/api/v1/determine` && r.request().method() === "POST", { timeout: 10_000 });
    await pressButton(/^Send/);
    const request = await sent;
    expect(JSON.parse(request.postData()!)).toEqual({ state: "NM", activity: "construction", acres: 3 });
    expect(request.headers().authorization).toBe("Bearer svc_sandbox_public");
    const response = await answered;
    expect(response.status()).toBe(200);
    const body = await response.json();
    expect(body.data).toMatchObject({ coverage: "required", permit: { id: "cgp-2022" }, input: { state: "NM", disturbedAcres: 3 } });
    expect(body.attribution).toBeTruthy(); // answered as the sandbox key, never billed
  }, 30_000);
});
