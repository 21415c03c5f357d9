// The served OpenAPI document passes `@redocly/cli lint` (redocly.yaml: recommended-strict, with
// each rule turned off justified there), and every property in it says what it is.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describedPointers, propertiesOf } from "@permits/gateway";
import { startEmbedded, type Embedded } from "./support/embedded.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const run = promisify(execFile);
let gw: Embedded;
let dir: string;
beforeAll(async () => {
  gw = await startEmbedded();
  dir = mkdtempSync(path.join(os.tmpdir(), "permits-lint-"));
}, 60_000);
afterAll(async () => {
  await gw?.close();
  rmSync(dir, { recursive: true, force: true });
});

it("passes redocly lint with no problem", async () => {
  const file = path.join(dir, "openapi.json");
  writeFileSync(file, (await gw.app.inject({ method: "GET", url: "/api/openapi" })).body);
  const env = { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" };
  const result = await run(path.join(ROOT, "node_modules/.bin/redocly"), ["lint", file, "--config", path.join(ROOT, "redocly.yaml"), "--format", "json"], { cwd: ROOT, env }).catch((e) => e as { stdout: string; stderr: string; code: number });
  const report = JSON.parse(result.stdout.slice(result.stdout.indexOf("{")));
  const problems = (report.problems as Array<{ ruleId: string; message: string; location: Array<{ pointer: string }> }>).map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);
  expect(problems).toEqual([]);
  expect(report.totals).toEqual(expect.objectContaining({ errors: 0, warnings: 0 }));
}, 60_000);

it("describes every property, and property-descriptions.json holds no entry that matches none", async () => {
  const doc = (await gw.app.inject({ method: "GET", url: "/api/openapi" })).json();
  const all = [...propertiesOf(doc)];
  expect(all.length).toBeGreaterThan(300);
  const undescribed = all.filter(([, schema]) => typeof schema.description !== "string" || schema.description.trim() === "").map(([p]) => p);
  expect(undescribed).toEqual([]);
  const pointers = new Set(all.map(([p]) => p));
  expect(describedPointers().filter((p) => !pointers.has(p))).toEqual([]);
});
