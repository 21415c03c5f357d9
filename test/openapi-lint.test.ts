// The served OpenAPI document passes `@redocly/cli lint` (redocly.yaml: recommended-strict, with
// each rule turned off justified there), and every property in it says what it is.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startEmbedded, type Embedded } from "./support/embedded.js";

const ROOT = path.resolve(import.meta.dirname, "..");

const escape = (key: string) => key.replace(/~/g, "~0").replace(/\//g, "~1");

/** Every property schema of `node`, with its JSON Pointer. */
function* propertiesOf(node: unknown, at = ""): Generator<[string, Record<string, unknown>]> {
  if (!node || typeof node !== "object") return;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) yield* propertiesOf(node[i], `${at}/${i}`);
    return;
  }
  const obj = node as Record<string, unknown>;
  const props = obj.properties;
  if (props && typeof props === "object" && !Array.isArray(props)) {
    for (const [k, v] of Object.entries(props as Record<string, unknown>)) {
      if (v && typeof v === "object") yield [`${at}/properties/${escape(k)}`, v as Record<string, unknown>];
    }
  }
  for (const [k, v] of Object.entries(obj)) yield* propertiesOf(v, `${at}/${escape(k)}`);
}
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

// A response field of a proto message is described by its comment in the .proto: a field added
// without one fails here.
it("describes every property", async () => {
  const doc = (await gw.app.inject({ method: "GET", url: "/api/openapi" })).json();
  const all = [...propertiesOf(doc)];
  expect(all.length).toBeGreaterThan(300);
  const undescribed = all.filter(([, schema]) => typeof schema.description !== "string" || schema.description.trim() === "").map(([p]) => p);
  expect(undescribed).toEqual([]);
});

it("describes a response field in the words of its comment in the .proto, its lines run on", async () => {
  const doc = (await gw.app.inject({ method: "GET", url: "/api/openapi" })).json();
  const proto = readFileSync(path.join(ROOT, "proto/permits/common/v1/common.proto"), "utf8");
  const citation = proto.slice(proto.indexOf("message Citation {"), proto.indexOf("Basis basis = 5;"));
  const comment = citation.slice(citation.lastIndexOf(";") + 1).trim().split("\n").map((l) => l.trim().replace(/^\/\/ ?/, "")).join(" ");
  expect(comment).toMatch(/^What the cited fact rests on: official-text .* may be verified\.$/);
  expect(doc.components.schemas.CommonCitation.properties.basis.description).toBe(comment);
});
