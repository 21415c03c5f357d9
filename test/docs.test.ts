// The README and docs/ say what the code does: every relative link and anchor resolves, the
// README's examples answer as shown against the embedded deployment (through jq, as a reader runs
// them), and the configuration table lists exactly the variables the code reads, with the config
// modules' defaults. (The generated tables are checked by `npm run check:docs`, in npm test.)
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { DEFAULT_LIMITS } from "@permits/rpc";
import { DEFAULT_REDIS_TIMEOUT_MS, DEFAULT_STATE_DIR } from "@permits/state";
import { readGatewayConfig, SERVICES, urlVariable } from "@permits/gateway";
import { DEFAULT_PROVIDER_TIMEOUT_MS, DEFAULT_REDIS_PREFIX, DEFAULT_STRIPE_URL } from "@permits/entitlement/testing";
import { startEmbedded, type Embedded } from "./support/embedded.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const read = (rel: string) => readFileSync(path.join(ROOT, rel), "utf8");
const PAGES = ["README.md", ...readdirSync(path.join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];

/** GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped, spaces to `-`. */
const slug = (heading: string) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-");
const anchorsOf = (text: string) => new Set(text.split("\n").filter((l) => /^#{1,6} /.test(l) && !l.startsWith("#!")).map((l) => slug(l.replace(/^#+ /, ""))));
/** Markdown text without its fenced code blocks (a `#` comment in a shell block is no heading). */
const prose = (text: string) => text.replace(/^```[\s\S]*?^```$/gm, "");

describe("links", () => {
  it("every relative link in README.md and docs/*.md names a file of the repository, and its anchor a heading there", () => {
    const problems: string[] = [];
    let links = 0;
    for (const page of PAGES) {
      for (const m of prose(read(page)).matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1];
        if (/^[a-z]+:/.test(target)) continue; // https:, mailto:
        links++;
        const [file, anchor] = target.split("#");
        const rel = file === "" ? page : path.normalize(path.join(path.dirname(page), file));
        if (rel.startsWith("..")) problems.push(`${page}: ${target} leaves the repository`);
        else if (!existsSync(path.join(ROOT, rel))) problems.push(`${page}: ${target} does not exist`);
        else if (anchor && rel.endsWith(".md") && !anchorsOf(prose(read(rel))).has(anchor)) problems.push(`${page}: ${target}: no heading with that anchor`);
      }
    }
    expect(problems).toEqual([]);
    expect(links).toBeGreaterThan(30);
  });

  it("the README stays a front door: at most about 250 lines, linking every page of docs/", () => {
    const readme = read("README.md");
    expect(readme.split("\n").length).toBeLessThanOrEqual(250);
    for (const page of PAGES.filter((p) => p.startsWith("docs/") && p !== "docs/README.md")) expect(readme, page).toContain(`](${page})`);
    expect(readme).not.toContain("../shared/");
  });
});

// ------------------------------------------------------------------------------------------
// The README's examples, run as written: curl's request sent with fetch, its answer piped through jq.

interface Example {
  url: string;
  headers: Record<string, string>;
  body?: string;
  jq: string;
}

/** Shell words of one command: single-quoted strings and bare words (all the README uses). */
function words(command: string): string[] {
  return [...command.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]);
}

function parseExample(command: string): Example {
  const [curlPart, jqPart] = command.split(/\s\|\s(?=jq )/);
  const w = words(curlPart);
  expect(w.slice(0, 2)).toEqual(["curl", "-s"]);
  const ex: Example = { url: "", headers: {}, jq: words(jqPart ?? "")[1] ?? "" };
  for (let i = 2; i < w.length; i++) {
    if (w[i] === "-H") {
      const [name, ...value] = w[++i].split(":");
      ex.headers[name.trim().toLowerCase()] = value.join(":").trim();
    } else if (w[i] === "-d") ex.body = w[++i];
    else ex.url = w[i];
  }
  expect(jqPart && words(jqPart)[0]).toBe("jq");
  return ex;
}

/** The commands of the first sh block under a README heading, continuation lines joined. */
function commandsUnder(heading: string): string[] {
  const section = read("README.md").split(new RegExp(`^## ${heading}$`, "m"))[1].split(/^## /m)[0];
  const blocks = [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]).slice(0, 1);
  return blocks.flatMap((b) => b.replace(/\\\n\s*/g, " ").split("\n").filter((l) => l.startsWith("curl ")));
}

const jqFound = inject("prerequisites").jq;
describe.skipIf(!jqFound)("the README's examples, against the embedded deployment", () => {
  let gw: Embedded;
  let base: string;
  beforeAll(async () => {
    gw = await startEmbedded();
    base = await gw.app.listen({ port: 0, host: "127.0.0.1" });
  });
  afterAll(async () => {
    await gw?.close();
  });

  async function run(ex: Example): Promise<{ status: number; out: unknown[] }> {
    const url = ex.url.replace(/^localhost:8080/, base);
    const res = await fetch(url, { method: ex.body === undefined ? "GET" : "POST", headers: ex.headers, body: ex.body });
    const jq = spawnSync("jq", ["-c", ex.jq], { input: await res.text(), encoding: "utf8" });
    expect(jq.status, `jq '${ex.jq}': ${jq.stderr}`).toBe(0);
    return { status: res.status, out: jq.stdout.trim().split("\n").map((l) => JSON.parse(l)) };
  }

  it("five examples, each answered 200, every field its jq filter picks present (none null)", async () => {
    const examples = commandsUnder("Five examples").map(parseExample);
    expect(examples).toHaveLength(5);
    for (const ex of examples) {
      const { status, out } = await run(ex);
      expect(status, ex.url).toBe(200);
      expect(out.length, ex.url).toBeGreaterThan(0);
      for (const item of out) for (const [k, v] of Object.entries(item as object)) expect(v, `${ex.url}: ${k}`).not.toBeNull();
    }
  });

  it("the error example: 400 invalid_request with a message in plain words", async () => {
    const errorCommand = read("README.md").split("\n").find((l) => l.startsWith("curl ") && l.includes('"ZZ"'));
    expect(errorCommand).toBeDefined();
    const { status, out } = await run(parseExample(errorCommand!));
    expect(status).toBe(400);
    expect(out).toEqual([{ code: "invalid_request", message: 'state "ZZ" is not a known state, territory or DC code' }]);
  });
});

describe("the README's keys table", () => {
  it("the keys table's limits are data/tiers.json's", () => {
    const tiers = JSON.parse(read("data/tiers.json")) as { policies: { id: string; windows: { name: string; limit: number }[] }[] };
    const readme = read("README.md");
    const row = (label: string) => readme.split("\n").find((l) => l.startsWith(`| ${label}`)) ?? "";
    const windows = (name: string) => tiers.policies.find((p) => p.id === name)?.windows.map((w) => `${w.limit.toLocaleString("en-US")} / ${w.name}`) ?? [`${name}?`];
    for (const w of windows("stormwater.anonymous")) expect(row("none"), w).toContain(w);
    for (const w of [...windows("stormwater.sandbox"), ...windows("nwp.sandbox")]) expect(row("sandbox"), w).toContain(w);
    for (const w of windows("nwp.pro")) expect(row("`nwp_"), w).toContain(w);
  });
});

// ------------------------------------------------------------------------------------------
// docs/configuration.md's table against the code.

/** Source files the deployments run (tests and test doubles left out). */
function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts") && !/(\.test\.ts|^testing\.ts|^fake-.*\.ts)$/.test(e.name))
    .map((e) => path.join(e.parentPath, e.name));
}

/** Every environment variable the code reads: `env.X`, `env["X"]`, a readEnv spec `X: validator({ default`, `read(env, "X")`, and `X_FILE` beside a variable read with its file form. */
function variablesTheCodeReads(): Set<string> {
  const names = new Set<string>();
  const workspaces = (parent: string) => readdirSync(path.join(ROOT, parent)).map((s) => `${parent}/${s}/src`);
  const dirs = [...workspaces("services"), ...workspaces("packages"), "gateway/src"].filter((d) => existsSync(path.join(ROOT, d)));
  for (const file of dirs.flatMap(sourceFiles)) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/\benv\??\.([A-Z][A-Z0-9_]*)\b|\benv\[\s*"([A-Z][A-Z0-9_]*)"\s*\]|\b([A-Z][A-Z0-9_]*)\s*:\s*[A-Za-z]+\(\{\s*default\b|\(\s*(?:ctx\.)?env\s*,\s*"([A-Z][A-Z0-9_]*)"/g)) {
      names.add((m[1] ?? m[2] ?? m[3] ?? m[4])!);
    }
    for (const m of text.matchAll(/\b(?:variableOrFile|readSecret)\(\s*(?:ctx\.)?env\s*,\s*"([A-Z][A-Z0-9_]*)"/g)) names.add(`${m[1]}_FILE`);
  }
  // The gateway's config reads one <NAME>_URL per service of its list (gateway/src/config.ts).
  expect(readFileSync(path.join(ROOT, "gateway/src/config.ts"), "utf8")).toMatch(/SERVICES\.map\(\(s\) => \[urlVariable\(s\.name\)/);
  for (const s of SERVICES) names.add(urlVariable(s.name));
  return names;
}

/** The table: variable -> its Default cell, and every variable its rows name anywhere. */
function configurationTable(): { defaults: Map<string, string>; named: Set<string> } {
  const section = read("docs/configuration.md").split(/^## /m)[0];
  const defaults = new Map<string, string>();
  const named = new Set<string>();
  for (const line of section.split("\n").filter((l) => l.startsWith("| `"))) {
    const cells = line.split(/(?<!\\)\|/).map((c) => c.trim());
    for (const m of cells[1].matchAll(/`([A-Z][A-Z0-9_]*)`/g)) defaults.set(m[1], cells[2]);
    for (const m of line.matchAll(/`([A-Z][A-Z0-9_]+)`/g)) named.add(m[1]);
  }
  return { defaults, named };
}

describe("docs/configuration.md", () => {
  it("lists exactly the variables the code reads (the standard OTEL_* ones it passes on may be named in a row's text)", () => {
    const code = variablesTheCodeReads();
    const { defaults, named } = configurationTable();
    expect(code.size).toBeGreaterThan(35);
    expect([...code].filter((v) => !named.has(v)).sort(), "read by the code, not in the table").toEqual([]);
    expect([...defaults.keys()].filter((v) => !code.has(v)).sort(), "in the table, read by no code").toEqual([]);
  });

  it("gives the config modules' defaults", () => {
    const { defaults } = configurationTable();
    const expected: Record<string, string | number> = {
      STATE_DIR: DEFAULT_STATE_DIR,
      PAYMENT_PROVIDER_TIMEOUT_MS: DEFAULT_PROVIDER_TIMEOUT_MS,
      PAYMENT_PROVIDER_URL: DEFAULT_STRIPE_URL,
      ENTITLEMENT_REDIS_PREFIX: DEFAULT_REDIS_PREFIX,
      REDIS_TIMEOUT_MS: DEFAULT_REDIS_TIMEOUT_MS,
      MAX_CONCURRENT_STREAMS: DEFAULT_LIMITS.maxConcurrentStreams,
      MAX_CONNECTION_AGE_MS: DEFAULT_LIMITS.maxConnectionAgeMs,
    };
    for (const [name, value] of Object.entries(readGatewayConfig({}))) {
      if (name === "PORT") expected[name] = value as number;
      // TRUST_PROXY's `false` is "no proxy": the page says unset.
      else if (value === undefined || value === false) expected[name] = "unset";
      else expected[name] = value as string | number;
    }
    expect(Object.keys(expected).length).toBeGreaterThan(20);
    for (const [name, value] of Object.entries(expected)) {
      const cell = defaults.get(name);
      expect(cell, `${name} has a row`).toBeDefined();
      expect(cell, name).toContain(value === "unset" ? "unset" : `\`${value}\``);
    }
  });
});
