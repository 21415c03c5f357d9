#!/usr/bin/env node
// Rewrites the README's "What we know" table from `data-report.mjs --markdown` (npm run data:readme).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const table = execFileSync(process.execPath, [`${root}scripts/data-report.mjs`, "--markdown"], { encoding: "utf8" }).trimEnd();
const readme = fs.readFileSync(`${root}README.md`, "utf8");
const next = readme.replace(/(<!-- what-we-know:start -->\n)[\s\S]*?(\n<!-- what-we-know:end -->)/, `$1${table}$2`);
fs.writeFileSync(`${root}README.md`, next);
