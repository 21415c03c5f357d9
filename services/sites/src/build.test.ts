// The service as a host builds it: nothing of the database loads before the first call, a bad
// DATABASE_URL stops the start, and a database that cannot be reached answers Unavailable.
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

/** Builds the compiled service in a fresh process; reports what is loaded before and after its first call. */
const PROBE = `
const [dist, stateDir] = process.argv.slice(1);
const { manifest } = await import(dist + "/manifest.js");
const build = await manifest.load();
const { create } = await import("@bufbuild/protobuf");
const { ListSitesRequestSchema } = await import("@permits/proto/sites/v1/sites");
const { createLogger, systemClock } = await import("@permits/runtime");
const fs = await import("node:fs");
const state = () => ({ sqlite: process.moduleLoadList.includes("NativeModule sqlite"), file: fs.existsSync(stateDir + "/sites.sqlite") });
const built = await build({ env: { STATE_DIR: stateDir }, logger: createLogger("probe", { level: "silent" }), clock: systemClock });
const before = state();
const { sites } = await built.impl.listSites(create(ListSitesRequestSchema, { accountId: "a", actor: "probe" }));
console.log(JSON.stringify({ before, after: state(), sites: sites.length }));
await built.close();
`;

describe("build", () => {
  it("loads nothing of the database until the first call", () => {
    if (!existsSync(path.join(DIST, "index.js"))) throw new Error(`the built service is missing at ${DIST}: run npm run build`);
    const stateDir = mkdtempSync(path.join(tmpdir(), "sites-lazy-"));
    try {
      const run = spawnSync(process.execPath, ["--no-warnings", "--input-type=module", "-e", PROBE, DIST, stateDir], { encoding: "utf8", cwd: path.resolve(DIST, "..") });
      expect(run.status, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual({ before: { sqlite: false, file: false }, after: { sqlite: true, file: true }, sites: 0 });
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
