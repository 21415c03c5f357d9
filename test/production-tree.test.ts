// The production dependency tree, as the image's runtime stage holds it: the manifests, the built
// output and the data, with `npm ci --omit=dev`. Every role starts from it and answers, so
// nothing imported at run time is a dev dependency, and no test double ships.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, ROOT, startDistributed, startGatewayProcess, type Distributed } from "./support/processes.js";

/** The workspaces whose built output the Dockerfile's runtime stage copies (every service's among them). */
const WORKSPACES = [...readFileSync(path.join(ROOT, "Dockerfile"), "utf8").matchAll(/^COPY --from=build \/app\/(\S+)\/dist \1\/dist$/gm)].map((m) => m[1]);
const DETERMINE = { state: "TX", activity: "construction", acres: 5 };

let tree: string;

/** Copies what the Dockerfile's runtime stage copies, then installs production dependencies only. */
function productionTree(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "permits-prod-"));
  for (const f of ["package.json", "package-lock.json", "deploy/healthcheck.mjs", "scripts/keys.mjs", "scripts/sites.mjs", "scripts/lib/run-compiled.mjs"]) cpSync(path.join(ROOT, f), path.join(dir, f));
  cpSync(path.join(ROOT, "data"), path.join(dir, "data"), { recursive: true });
  cpSync(path.join(ROOT, "gateway/openapi"), path.join(dir, "gateway/openapi"), { recursive: true }); // as the Dockerfile does
  for (const w of WORKSPACES) {
    cpSync(path.join(ROOT, w, "package.json"), path.join(dir, w, "package.json"));
    cpSync(path.join(ROOT, w, "dist"), path.join(dir, w, "dist"), { recursive: true, filter: (src) => !src.endsWith(".tsbuildinfo") });
  }
  // The npm cache holds every package already (the checkout's own `npm ci`): no network needed.
  execFileSync("npm", ["ci", "--omit=dev", "--ignore-scripts", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: dir, stdio: "pipe", env: { ...process.env, NODE_ENV: "production" } });
  return dir;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

async function determinationFrom(baseUrl: string): Promise<{ status: number; coverage: unknown }> {
  const res = await fetch(`${baseUrl}/api/v1/determine`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(DETERMINE) });
  const body = (await res.json()) as { data?: { coverage?: unknown } };
  return { status: res.status, coverage: body.data?.coverage };
}

beforeAll(() => {
  ensureBuilt();
  tree = productionTree();
}, 180_000);
afterAll(() => {
  if (tree) rmSync(tree, { recursive: true, force: true });
});

describe("the production dependency tree", () => {
  it("holds no dev dependency and no test double", () => {
    for (const dev of ["vitest", "typescript", "fast-check", "autocannon", "@bufbuild/buf"]) expect(existsSync(path.join(tree, "node_modules", dev)), dev).toBe(false);
    const shipped = WORKSPACES.flatMap((w) => filesUnder(path.join(tree, w, "dist"))).map((f) => path.basename(f));
    expect(shipped.filter((f) => /^fake-|^testing\.|\.test\./.test(f))).toEqual([]);
    expect(shipped).toContain("main.js");
  });

  it("runs the key CLI (npm run keys) from the compiled code, with no build tool", () => {
    const stateDir = mkdtempSync(path.join(os.tmpdir(), "permits-keys-"));
    const env = { ...process.env, STATE_DIR: stateDir, REDIS_URL: "" };
    try {
      const npm = (args: string[]) => execFileSync("npm", ["run", "--silent", "keys", "--", ...args], { cwd: tree, env, encoding: "utf8" });
      const created = npm(["create", "--kind", "test", "--label", "from-the-image"]);
      const id = /key_[A-Za-z0-9]+/.exec(created)?.[0];
      expect(id).toBeDefined();
      expect(created).toMatch(/svc_test_[A-Za-z0-9]+/);
      expect(npm(["list"])).toContain(id);
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  });

  it("starts the embedded gateway, which answers a determination", async () => {
    const gateway = await startGatewayProcess({ NODE_ENV: "production" }, tree);
    try {
      expect(await determinationFrom(gateway.baseUrl)).toEqual({ status: 200, coverage: "required" });
    } finally {
      gateway.stop();
    }
  }, 60_000);

  it("starts every service and the distributed gateway, which answer through each other", async () => {
    let d: Distributed | undefined;
    try {
      d = await startDistributed({ NODE_ENV: "production" }, tree);
      expect(await determinationFrom(d.baseUrl)).toEqual({ status: 200, coverage: "required" });
      // Document 2's public sandbox key: through entitlement, ratelimit and nwp.
      const nwp = await fetch(`${d.baseUrl}/api/v1/nwp/12`, { headers: { "x-api-key": "svc_sandbox_public" } });
      expect(nwp.status).toBe(200);
    } finally {
      await d?.close();
    }
  }, 60_000);
});
