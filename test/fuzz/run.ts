// Drives hostile requests at a running deployment (real sockets, so Node's HTTP parser is part of
// what is tested), checks every answer, and reports a row of figures or the minimal failing request.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { runCli } from "@permits/entitlement";
import { generousTiersFile, startDistributed, startGatewayProcess } from "../support/processes.js";
import { openApiCheck } from "../support/openapi-check.js";
import { isAnswer, sendRaw } from "../support/raw-http.js";
import { APP_ENDPOINTS, describeRequest, hostileRequest, serialize, type Endpoint, type FuzzKeys, type FuzzRequest } from "./hostile.js";
import { responseChecker, routesOf } from "./invariants.js";

export interface FuzzTarget {
  name: "embedded" | "distributed";
  port: number;
  /** Processes whose memory is watched: the gateway first. */
  pids: number[];
  alive(): boolean;
  keys: FuzzKeys;
  close(): Promise<void>;
}

/** Processes may grow while caches warm, but not without bound. */
const RSS_CEILING_MB = 768;
const HEALTH_EVERY = 250;

/** A deployment on loopback with a document 1 Pro key and a document 2 Pro key issued beforehand. */
export async function startFuzzTarget(name: FuzzTarget["name"]): Promise<FuzzTarget> {
  const stateDir = mkdtempSync(path.join(os.tmpdir(), "permits-fuzz-"));
  const env = { STATE_DIR: stateDir, REDIS_URL: "", TIERS_FILE: generousTiersFile(), LOG_LEVEL: "fatal" };
  const cli = async (...argv: string[]) => {
    let out = "";
    const code = await runCli(argv, { out: (t) => (out += t), err: () => {}, env: { ...process.env, ...env } });
    if (code !== 0) throw new Error(`keys ${argv.join(" ")} exited ${code}`);
    return out.trim();
  };
  const livePro = /svc_live_\w+/.exec(await cli("create", "--kind", "live", "--plan", "pro"))![0];
  await cli("subscription", "set", "sub_fuzz_pro", "active");
  const keys = { livePro, legacyPro: await cli("legacy", "sub_fuzz_pro") };
  const removeState = () => rmSync(stateDir, { recursive: true, force: true });
  if (name === "embedded") {
    const g = await startGatewayProcess(env);
    return { name, port: g.port, pids: [g.proc.child.pid!], alive: () => g.proc.child.exitCode === null, keys, close: async () => (g.stop(), removeState()) };
  }
  const d = await startDistributed(env);
  const gateway = d.procs.find((p) => p.name === "gateway")!;
  return {
    name,
    port: Number(new URL(d.baseUrl).port),
    pids: [gateway, ...d.procs.filter((p) => p !== gateway)].map((p) => p.child.pid!),
    alive: () => d.procs.every((p) => p.child.exitCode === null),
    keys,
    close: async () => (await d.close(), removeState()),
  };
}

export interface FuzzRow {
  deployment: string;
  seed: number;
  requests: number;
  statuses: Record<string, number>;
  violations: number;
  rssStartMb: number;
  rssEndMb: number;
  seconds: number;
  /** The minimal failing request, shrunk by fast-check, with what it broke. */
  failure?: string;
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Math.round(Number(m[1]) / 1024) : 0;
}

export async function fuzz(target: FuzzTarget, opts: { requests: number; seed: number }): Promise<FuzzRow> {
  const index = await fetch(`http://127.0.0.1:${target.port}/api/v1`).then((r) => r.json() as Promise<{ data: { endpoints: (Endpoint & { surface: string })[] } }>);
  const endpoints = [...index.data.endpoints, { method: "POST", path: "/mcp", surface: "stormwater" }, ...APP_ENDPOINTS];
  const doc = (await fetch(`http://127.0.0.1:${target.port}/api/openapi`).then((r) => r.json())) as { paths: Record<string, unknown> };
  const bilingual = new Set(Object.keys(doc.paths).filter((p) => /StormwaterError.*NwpError|NwpError.*StormwaterError/.test(JSON.stringify(doc.paths[p]))));
  const check = responseChecker(routesOf(index.data.endpoints, bilingual));
  // Every answer is also one the served OpenAPI document declares, with a body its schema accepts.
  const documented = openApiCheck(doc as Parameters<typeof openApiCheck>[0]);
  const statuses: Record<string, number> = {};
  let sent = 0;
  let violations = 0;
  const rssStart = Math.max(...target.pids.map(rssMb));
  const started = Date.now();

  const attempt = async (r: FuzzRequest): Promise<string[]> => {
    // A pipelined request's answer is the second on the connection.
    const answer = await sendRaw(target.port, serialize(r), { head: r.method === "HEAD", skip: r.pipelined ? 1 : 0 });
    sent++;
    const key = isAnswer(answer) ? String(answer.status) : answer.failure;
    statuses[key] = (statuses[key] ?? 0) + 1;
    const found = isAnswer(answer)
      ? [...check(r.target, r.method, answer), ...documented.problems(r.method, r.target, answer.status, answer.headers["content-type"], r.method === "HEAD" ? "" : answer.body)]
      : [`no answer: ${answer.failure} (${answer.detail})`];
    if (sent % HEALTH_EVERY === 0) found.push(...(await health(target)));
    if (found.length) violations++;
    return found;
  };

  const details = await fc.check(
    fc.asyncProperty(hostileRequest(endpoints, target.keys), async (r) => {
      const found = await attempt(r);
      if (found.length) throw new Error(found.join("; "));
    }),
    { seed: opts.seed, numRuns: opts.requests, endOnFailure: false, markInterruptAsFailure: true },
  );
  const final = await health(target);
  const rssEnd = Math.max(...target.pids.map(rssMb));
  let failure: string | undefined;
  if (details.failed) {
    const [minimal] = details.counterexample as [FuzzRequest];
    failure = `seed ${opts.seed}, path ${details.counterexamplePath}: ${(details.errorInstance as Error | undefined)?.message}\n${describeRequest(minimal)}`;
  } else if (final.length) {
    failure = final.join("; ");
    violations++;
  }
  return { deployment: target.name, seed: opts.seed, requests: sent, statuses, violations, rssStartMb: rssStart, rssEndMb: rssEnd, seconds: Math.round((Date.now() - started) / 100) / 10, failure };
}

async function health(target: FuzzTarget): Promise<string[]> {
  if (!target.alive()) return ["a process of the deployment exited"];
  const a = await sendRaw(target.port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  const found = isAnswer(a) && a.status === 200 ? [] : ["/healthz no longer answers 200"];
  const rss = Math.max(...target.pids.map(rssMb));
  if (rss > RSS_CEILING_MB) found.push(`RSS ${rss} MB is over ${RSS_CEILING_MB} MB`);
  return found;
}

export function fuzzTable(rows: FuzzRow[]): string {
  const header = ["deployment", "seed", "requests", "violations", "req/s", "RSS MB", "statuses"];
  const lines = rows.map((r) => [
    r.deployment,
    String(r.seed),
    String(r.requests),
    String(r.violations),
    String(Math.round(r.requests / Math.max(r.seconds, 0.1))),
    `${r.rssStartMb} -> ${r.rssEndMb}`,
    Object.entries(r.statuses).sort(([a], [b]) => a.localeCompare(b)).map(([s, n]) => `${s}:${n}`).join(" "),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const fmt = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join("  ");
  const failures = rows.filter((r) => r.failure).map((r) => `\n${r.deployment}: minimal failing request (${r.failure})`);
  return [fmt(header), fmt(widths.map((w) => "-".repeat(w))), ...lines.map(fmt), ...failures].join("\n");
}
