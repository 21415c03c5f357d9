#!/usr/bin/env node
// npm run docs:tables: rewrites the generated tables of docs/ between their markers, from the code:
//   docs/data.md   <!-- what-we-know -->  `data-report.mjs --markdown` (what the datasets hold)
//   docs/using.md  <!-- mcp-tools -->     the tools the gateway's /mcp serves (tools/list)
// `--check` (npm run check:docs, in npm test) writes nothing and exits 1 naming each stale table.
// The configuration table is written by hand (its meanings are prose) and checked against the
// config modules by test/docs-configuration.test.ts. Reads the built gateway (npm run build).
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { withEmbeddedGateway } from "./embedded-gateway.mjs";

const ROOT = path.resolve(import.meta.dirname, "..");
const check = process.argv.includes("--check");

function whatWeKnow() {
  return execFileSync(process.execPath, [path.join(ROOT, "scripts/data-report.mjs"), "--markdown"], { encoding: "utf8" }).trimEnd();
}

/** The tools an embedded gateway lists on /mcp, as a table: name, what it answers, the REST route it forwards to. */
async function mcpTools() {
  const { TOOLS } = await import("@permits/gateway");
  const routes = new Map(TOOLS.map((t) => [t.name, t.route]));
  const tools = await withEmbeddedGateway(async ({ app }) => {
    const res = await app.inject({
      method: "POST",
      url: "/mcp",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", host: "127.0.0.1" },
      payload: { jsonrpc: "2.0", id: 1, method: "tools/list" },
    });
    if (res.statusCode !== 200) throw new Error(`tools/list answered ${res.statusCode}: ${res.body}`);
    return res.json().result.tools;
  });
  const rows = tools.map((t) => {
    const route = routes.get(t.name);
    if (!route) throw new Error(`/mcp lists ${t.name}, which gateway/src/mcp/tools.ts does not declare`);
    return `| \`${t.name}\` | ${t.title ?? t.annotations?.title ?? ""} | \`${route}\` |`;
  });
  return [`${tools.length} tools:`, "", "| Tool | What it answers | REST route it forwards to |", "|---|---|---|", ...rows].join("\n");
}

const TABLES = [
  { file: "docs/data.md", marker: "what-we-know", make: whatWeKnow, by: "npm run data:readme" },
  { file: "docs/using.md", marker: "mcp-tools", make: mcpTools, by: "npm run docs:tables" },
];

const stale = [];
for (const t of TABLES) {
  const file = path.join(ROOT, t.file);
  const text = readFileSync(file, "utf8");
  const re = new RegExp(`(<!-- ${t.marker}:start -->)[\\s\\S]*?(<!-- ${t.marker}:end -->)`);
  if (!re.test(text)) throw new Error(`${t.file} has no <!-- ${t.marker}:start --> ... <!-- ${t.marker}:end --> block`);
  const table = await t.make();
  const next = text.replace(re, (_m, start, end) => `${start}\n${table}\n${end}`);
  if (next === text) continue;
  if (check) stale.push(`${t.file}: the ${t.marker} table is stale; run ${t.by} and commit it`);
  else writeFileSync(file, next);
}
if (stale.length > 0) {
  for (const s of stale) console.error(s);
  process.exit(1);
}
