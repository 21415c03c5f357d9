// The service as a host builds it: nothing of the database loads before the first call (nor of
// webhook delivery before one is due), a bad DATABASE_URL stops the start, and a database that
// cannot be reached answers Unavailable.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { ListSitesRequestSchema } from "@permits/proto/sites/v1/sites";
import { ConfigError, createLogger, systemClock } from "@permits/runtime";
import { build } from "./build.js";

const DIST = path.resolve(import.meta.dirname, "../dist");
const ctx = (env: NodeJS.ProcessEnv) => ({ env, logger: createLogger("sites-test", { level: "silent" }), clock: systemClock });

/**
 * Builds the compiled service in a fresh process and reports what is loaded: after the build,
 * after its first call, and after a webhook endpoint is registered and a test event delivered
 * (to a closed port on this machine, so the attempt is logged as refused).
 */
const PROBE = `
const loaded = [];
(await import("node:module")).registerHooks({ load: (url, context, next) => (loaded.push(url), next(url, context)) });
const [dist, stateDir] = process.argv.slice(1);
const { manifest } = await import(dist + "/manifest.js");
const build = await manifest.load();
const { create } = await import("@bufbuild/protobuf");
const sites = await import("@permits/proto/sites/v1/sites");
const { createLogger, systemClock } = await import("@permits/runtime");
const fs = await import("node:fs");
const builtin = (name) => process.moduleLoadList.includes("NativeModule " + name);
const library = (name) => loaded.some((url) => url.includes("/node_modules/" + name + "/"));
const state = () => ({
  sqlite: builtin("sqlite"), file: fs.existsSync(stateDir + "/sites.sqlite"),
  signing: library("standardwebhooks"), addressChecks: library("ipaddr.js"), zip: library("fflate"),
  http: builtin("http"), undici: builtin("internal/deps/undici/undici"), http2: builtin("http2"),
});
const env = { STATE_DIR: stateDir, WEBHOOK_ALLOW_PRIVATE: "1" };
const built = await build({ env, logger: createLogger("probe", { level: "silent" }), clock: systemClock });
const caller = { accountId: "a", actor: "probe" };
const cited = (await built.impl.listCitedDatasetVersions(create(sites.ListCitedDatasetVersionsRequestSchema, {}))).datasetVersions;
const before = state();
const listed = await built.impl.listSites(create(sites.ListSitesRequestSchema, caller));
const firstCall = state();
const { endpoint } = await built.impl.createWebhookEndpoint(create(sites.CreateWebhookEndpointRequestSchema, { ...caller, url: "http://127.0.0.1:1/hook", events: ["site.rules_changed"] }));
await built.impl.sendTestWebhook(create(sites.SendTestWebhookRequestSchema, { ...caller, endpointId: endpoint.id }));
let attempts = [];
for (let i = 0; i < 100 && attempts.length === 0; i++) {
  await new Promise((r) => setTimeout(r, 50));
  ({ attempts } = await built.impl.listWebhookAttempts(create(sites.ListWebhookAttemptsRequestSchema, { ...caller, endpointId: endpoint.id })));
}
console.log(JSON.stringify({ cited, before, firstCall, sites: listed.sites.length, delivered: state(), attempts: attempts.map((a) => a.error) }));
await built.close();
`;

describe("build", () => {
  it("loads nothing of the database until the first call, and nothing of webhook delivery until one is due", () => {
    if (!existsSync(path.join(DIST, "index.js"))) throw new Error(`the built service is missing at ${DIST}: run npm run build`);
    const stateDir = mkdtempSync(path.join(tmpdir(), "sites-lazy-"));
    try {
      const run = spawnSync(process.execPath, ["--no-warnings", "--input-type=module", "-e", PROBE, DIST, stateDir], { encoding: "utf8", cwd: path.resolve(DIST, "..") });
      expect(run.status, run.stderr).toBe(0);
      const nothing = { sqlite: false, file: false, signing: false, addressChecks: false, zip: false, http: false, undici: false, http2: false };
      expect(JSON.parse(run.stdout)).toEqual({
        // The gateway's start-up rules check, over no database: answered without creating one.
        cited: [],
        before: nothing,
        // The database only: signing, the address checks, HTTP and the ZIP writer wait for their first use.
        firstCall: { ...nothing, sqlite: true, file: true },
        sites: 0,
        // node:http as CommonJS: Node's fetch client (undici) and HTTP/2 stay unloaded even then.
        delivered: { ...nothing, sqlite: true, file: true, signing: true, addressChecks: true, http: true },
        attempts: ["The connection was refused."],
      });
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  });

  it("opens at start, with no call, an embedded file that already holds records (deliveries and the sweep resume)", () => {
    const stateDir = mkdtempSync(path.join(tmpdir(), "sites-resume-"));
    const reopen = `
const [dist, stateDir] = process.argv.slice(1);
const { manifest } = await import(dist + "/manifest.js");
const { createLogger, systemClock } = await import("@permits/runtime");
const build = await manifest.load();
const ctx = { env: { STATE_DIR: stateDir }, logger: createLogger("probe", { level: "silent" }), clock: systemClock };
const opened = () => process.moduleLoadList.includes("NativeModule sqlite");
if (process.argv[3] === "create") {
  const built = await build(ctx);
  await built.impl.listSites({ accountId: "a", actor: "probe" });
  await built.close();
} else {
  const built = await build(ctx);
  for (let i = 0; i < 100 && !opened(); i++) await new Promise((r) => setTimeout(r, 20));
  console.log(JSON.stringify({ opened: opened() }));
  await built.close();
}`;
    const probe = (...args: string[]) => spawnSync(process.execPath, ["--no-warnings", "--input-type=module", "-e", reopen, DIST, stateDir, ...args], { encoding: "utf8", cwd: path.resolve(DIST, "..") });
    try {
      expect(probe("create").status).toBe(0);
      const run = probe();
      expect(run.status, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual({ opened: true });
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  });

  it("refuses a DATABASE_URL that is not PostgreSQL's at start", async () => {
    await expect(build(ctx({ DATABASE_URL: "mysql://db:3306/permits" }))).rejects.toThrow(new ConfigError("invalid configuration: DATABASE_URL: must be a postgres:// or postgresql:// URL"));
    await expect(build(ctx({ DATABASE_URL: "not a url" }))).rejects.toThrow(/DATABASE_URL: must be an absolute URL/);
    await expect(build(ctx({ SITES_SQLITE_SYNC: "sometimes" }))).rejects.toThrow(/SITES_SQLITE_SYNC/);
  });

  it("answers Unavailable while the database cannot be reached, and stops a standalone start", async () => {
    const unreachable = ctx({ DATABASE_URL: "postgres://postgres@127.0.0.1:1/permits" });
    const built = await build(unreachable);
    const err = await built.impl.listSites(create(ListSitesRequestSchema, { accountId: "a", actor: "t" }), undefined as never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectError);
    expect((err as ConnectError).code).toBe(Code.Unavailable);
    expect((err as ConnectError).rawMessage).toBe("the sites database is unavailable");
    await built.close();
    await expect(build(unreachable, { eager: true })).rejects.toThrow(/ECONNREFUSED/);
  });
});
