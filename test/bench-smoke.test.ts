// The benchmark harness on a tiny budget: every deployment comes up, answers every request of the
// mix with 2xx, the sites service's figures are taken, and bench/run.mjs writes a well-formed results file. Timing targets are checked by
// `npm run bench`, never here.
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SERVICES } from "@permits/gateway/services";
import { ensureBuilt, ROOT } from "./support/processes.js";

const run = promisify(execFile);

interface Run {
  name: string;
  deployment: string;
  route: string;
  load: string;
  rps: number;
  p50_ms: number;
  p97_5_ms: number;
  p99_ms: number;
  errors: number;
  rss_mb: number;
  cpu_ms_per_req: number;
  processes: Record<string, { cpu_ms_per_req: number; rss_mb: number }>;
  ratio_to_ceiling: number;
}

describe("bench/run.mjs --quick", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "permits-bench-smoke-"));
  const file = path.join(dir, "results.json");
  let results: { machine: Record<string, unknown>; runs: Run[]; sites: Record<string, number> & { targets: Record<string, number> } };
  let stdout = "";

  beforeAll(async () => {
    ensureBuilt();
    const out = await run(process.execPath, [path.join(ROOT, "bench/run.mjs"), "--quick"], {
      cwd: ROOT,
      env: { ...process.env, BENCH_RESULTS: file, BENCH_DURATION_S: "0.3", BENCH_WARMUP_S: "0" },
      maxBuffer: 16 * 1024 * 1024,
    });
    stdout = out.stdout;
    results = JSON.parse(readFileSync(file, "utf8"));
  }, 120_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("describes the machine it ran on", () => {
    expect(results.machine).toMatchObject({ cpus: expect.any(Number), cpu_model: expect.any(String), memory_gb: expect.any(Number), node: process.version });
  });

  it("has every field of every run, typed", () => {
    expect(results.runs.length).toBeGreaterThan(0);
    for (const r of results.runs) {
      expect(Object.keys(r).sort()).toEqual(
        ["cpu_ms_per_req", "deployment", "errors", "load", "name", "p50_ms", "p97_5_ms", "p99_ms", "processes", "ratio_to_ceiling", "route", "rps", "rss_mb"].sort(),
      );
      for (const k of ["name", "route"] as const) expect(typeof r[k], `${r.name} ${k}`).toBe("string");
      expect(["ceiling", "embedded", "distributed", "engine"]).toContain(r.deployment);
      expect(["saturation", "rate-200"]).toContain(r.load);
      for (const k of ["rps", "p50_ms", "p97_5_ms", "p99_ms", "rss_mb", "cpu_ms_per_req", "ratio_to_ceiling"] as const) {
        expect(Number.isFinite(r[k]), `${r.name} ${k} = ${r[k]}`).toBe(true);
        expect(r[k], `${r.name} ${k}`).toBeGreaterThanOrEqual(0);
      }
      expect(Number.isInteger(r.errors)).toBe(true);
      expect(r.p50_ms).toBeLessThanOrEqual(r.p97_5_ms);
      expect(r.p97_5_ms).toBeLessThanOrEqual(r.p99_ms);
    }
  });

  it("measures the ceiling, both deployments on the same routes, and the engines", () => {
    const deployments = new Set(results.runs.map((r) => r.deployment));
    expect([...deployments].sort()).toEqual(["ceiling", "distributed", "embedded", "engine"]);
    const routesOf = (d: string) => results.runs.filter((r) => r.deployment === d).map((r) => `${r.route} ${r.load}`).sort();
    expect(routesOf("distributed")).toEqual(routesOf("embedded"));
    expect(routesOf("embedded")).toEqual(
      expect.arrayContaining([
        "POST /api/v1/determine saturation",
        "POST /api/v1/determine rate-200",
        "POST /api/v1/determine (live key) saturation",
        "POST /api/v1/determine (live key) rate-200",
        "GET /api/v1/requirements saturation",
        "POST /api/v1/determine/nwp saturation",
        "POST /api/v1/determine/batch saturation",
      ]),
    );
    expect(routesOf("ceiling")).toContain("POST /api/v1/determine saturation");
    const ceiling = results.runs.find((r) => r.deployment === "ceiling" && r.load === "saturation")!;
    expect(ceiling.rps).toBeGreaterThan(0);
    expect(ceiling.ratio_to_ceiling).toBe(1);
    for (const r of results.runs.filter((x) => x.deployment === "engine")) expect(r.rps).toBeGreaterThan(0);
    for (const r of results.runs.filter((x) => x.deployment !== "engine")) expect(r.rss_mb, r.name).toBeGreaterThan(0);
  });

  it("accounts CPU per answered request to each server process by role", () => {
    const roles = (d: string) => Object.keys(results.runs.find((r) => r.deployment === d)!.processes).sort();
    expect(roles("distributed")).toEqual(["gateway", ...SERVICES.map((s) => s.name)].sort());
    expect(roles("embedded")).toEqual(["gateway"]);
    expect(roles("ceiling")).toEqual(["ceiling"]);
    expect(roles("engine")).toEqual(["engine"]);
    for (const r of results.runs) {
      const parts = Object.values(r.processes);
      for (const p of parts) for (const v of [p.cpu_ms_per_req, p.rss_mb]) expect(Number.isFinite(v) && v >= 0, `${r.name} ${v}`).toBe(true);
      expect(r.cpu_ms_per_req, r.name).toBeCloseTo(parts.reduce((s, p) => s + p.cpu_ms_per_req, 0), 3);
    }
    // A process serving flat out spends measurable CPU (ticks are 10 ms; a saturation run lasts
    // 0.3 s, in which a cold batch route may answer nothing: no requests, no CPU per request).
    for (const r of results.runs.filter((x) => x.load === "saturation" && x.deployment !== "engine" && x.rps > 0)) {
      expect(r.processes[r.deployment === "ceiling" ? "ceiling" : "gateway"].cpu_ms_per_req, r.name).toBeGreaterThan(0);
    }
    expect(stdout).toContain("CPU ms/req");
  });

  it("measures the sites service on its embedded database and prints its figures under the table, with issue 39's targets", () => {
    expect(results.sites.targets).toEqual({ signed_inspection_p50_ms: 5, list_200_sites_p50_ms: 50, rss_added_mb: 30 });
    for (const k of ["signed_inspection_p50_ms", "list_200_sites_p50_ms"]) expect(results.sites[k], k).toBeGreaterThan(0);
    expect(Number.isFinite(results.sites.rss_added_mb)).toBe(true);
    const table = stdout.indexOf("| deployment");
    const figures = stdout.indexOf("sites service, embedded (SQLite in a temp STATE_DIR, in process):");
    expect(table).toBeGreaterThanOrEqual(0);
    expect(figures).toBeGreaterThan(table);
    expect(stdout.slice(figures)).toContain(`creating a signed inspection (draft, then sign), p50: ${results.sites.signed_inspection_p50_ms.toFixed(2)} ms (target < 5 ms)`);
    expect(stdout.slice(figures)).toContain(`listing 200 sites with their last signed inspection, p50: ${results.sites.list_200_sites_p50_ms.toFixed(2)} ms (target < 50 ms)`);
  });

  it("answers every request with 2xx", () => {
    for (const r of results.runs) expect(r.errors, r.name).toBe(0);
  });

  it("prints the table", () => {
    expect(stdout).toContain("| deployment");
    expect(stdout).toContain("ceiling");
  });
});

describe("bench/lib.mjs startFlags", () => {
  it("starts each role with the node flags of its package.json start script, the ceiling with the gateway's", async () => {
    // @ts-expect-error: a plain ES module without types
    const { startFlags } = await import("../bench/lib.mjs");
    const scripts: Record<string, string> = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).scripts;
    // Every role sets V8's young generation explicitly (in a pod Node would size it from the
    // memory limit); nwp, whose batch answers allocate the most, gets a larger one.
    expect(scripts["start:nwp"]).toBe("node --max-semi-space-size=64 services/nwp/dist/main.js");
    expect(startFlags("services/nwp/dist/main.js")).toEqual(["--max-semi-space-size=64"]);
    for (const role of ["stormwater", "entitlement", "ratelimit"]) {
      expect(scripts[`start:${role}`]).toBe(`node --max-semi-space-size=16 services/${role}/dist/main.js`);
      expect(startFlags(`services/${role}/dist/main.js`)).toEqual(["--max-semi-space-size=16"]);
    }
    // The gateway keeps the default size: 64 took embedded RSS past its 250 MB target.
    // npm start execs node, so that stopping npm stops the server (test/startup.test.ts).
    expect(scripts.start).toBe("exec node --max-semi-space-size=16 gateway/dist/main.js");
    expect(scripts["start:gateway"]).toBe("node --max-semi-space-size=16 gateway/dist/main.js");
    expect(startFlags("gateway/dist/main.js")).toEqual(["--max-semi-space-size=16"]);
    expect(startFlags("bench/ceiling.mjs")).toEqual(["--max-semi-space-size=16"]);
    expect(() => startFlags("services/unknown/dist/main.js")).toThrow(/no start script of package.json runs node services\/unknown\/dist\/main.js/);
  });
});

describe("bench/lib.mjs settle", () => {
  const node = (code: string) => spawn(process.execPath, ["-e", code], { stdio: "ignore" });
  // Busy for `ms` of wall time, then idle until killed.
  const busyFor = (ms: number) => node(`const end = Date.now() + ${ms}; while (Date.now() < end); setTimeout(() => {}, 60000);`);

  it("waits until the processes have finished their work, and says so", async () => {
    // @ts-expect-error: a plain ES module without types
    const { settle } = await import("../bench/lib.mjs");
    const child = busyFor(800);
    try {
      const t0 = performance.now();
      expect(await settle([{ child }])).toBe(true);
      expect(performance.now() - t0).toBeGreaterThanOrEqual(600);
    } finally {
      child.kill("SIGKILL");
    }
  });

  it("gives up after its timeout while they stay busy", async () => {
    // @ts-expect-error: a plain ES module without types
    const { settle } = await import("../bench/lib.mjs");
    const child = busyFor(60_000);
    try {
      const t0 = performance.now();
      expect(await settle([{ child }], 700)).toBe(false);
      expect(performance.now() - t0).toBeLessThan(2_000);
    } finally {
      child.kill("SIGKILL");
    }
  });
});

describe("bench/stages.mjs", () => {
  it("times each stage of the NWP batch in process and gives the answer's sizes", async () => {
    ensureBuilt();
    const { stdout } = await run(process.execPath, [path.join(ROOT, "bench/stages.mjs"), "3"], { cwd: ROOT });
    const out = JSON.parse(stdout);
    expect(out.batches).toBe(3);
    expect(Object.keys(out.ms_per_batch)).toEqual(["request", "request_pb", "engine", "encode", "decode", "json"]);
    for (const v of Object.values(out.ms_per_batch)) expect(v).toBeGreaterThan(0);
    // 100 determinations: ~1.4 KB each on the wire (shared parts sent once), ~4 KB each as public JSON.
    expect(out.response_wire_bytes).toBeGreaterThan(100_000);
    expect(out.response_json_bytes).toBeGreaterThan(2 * out.response_wire_bytes);
  });

  it("refuses a count that is not a positive whole number", async () => {
    await expect(run(process.execPath, [path.join(ROOT, "bench/stages.mjs"), "0"], { cwd: ROOT })).rejects.toMatchObject({ stderr: expect.stringMatching(/batches must be a positive whole number/) });
  });
});

describe("bench/lib.mjs paced", () => {
  it("times each answer to its last byte and counts every non-2xx answer as an error", async () => {
    // @ts-expect-error: a plain ES module without types
    const { paced } = await import("../bench/lib.mjs");
    // 400 KB answers whose last bytes come 60 ms after the first (the batch's answers are ~405 KB).
    const server = http.createServer((req, res) => {
      if (req.url === "/fail") {
        res.writeHead(503).end();
        return;
      }
      res.writeHead(200, { "content-length": 400_000 });
      res.write(Buffer.alloc(200_000, 97));
      setTimeout(() => res.end(Buffer.alloc(200_000, 98)), 60);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const m = await paced({ url, requests: [{ method: "GET", path: "/ok", headers: {} }, { method: "GET", path: "/ok", headers: {} }, { method: "GET", path: "/fail", headers: {} }], rate: 30, seconds: 1 });
      expect(m.errors).toBe(10);
      expect(m.detail).toBe("non-2xx or failed 10 (first statuses: 503,503,503)");
      expect(m.p50_ms).toBeGreaterThanOrEqual(60);
      expect(m.rps).toBeGreaterThan(15);
    } finally {
      server.close();
    }
  });
});
