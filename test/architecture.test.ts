// The architecture picture in the docs is dependency-cruiser's drawing of today's imports, not a
// drawing someone remembered to update: a stale one fails here (npm run docs:architecture fixes it).
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..");

describe("docs/architecture/dependencies.md", () => {
  it("is what dependency-cruiser draws from the sources now", () => {
    const run = spawnSync(process.execPath, [path.join(ROOT, "scripts/architecture.mjs"), "--check"], { cwd: ROOT, encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(run.stdout.trim()).toBe("docs/architecture/dependencies.md is fresh");
    expect(run.status).toBe(0);
  }, 120_000);
});
