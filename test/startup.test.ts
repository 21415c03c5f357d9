// Configuration is validated at start: a bad value stops the process with a message naming it.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import net from "node:net";
import { once } from "node:events";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { SERVICES, urlVariable } from "@permits/gateway/services";
import { ensureBuilt, freePort, ROOT } from "./support/processes.js";

beforeAll(() => ensureBuilt(), 120_000);

function run(script: string, env: Record<string, string>) {
  return spawnSync(process.execPath, [path.join(ROOT, script)], { env: { ...process.env, ...env }, encoding: "utf8", timeout: 10_000 });
}

describe("invalid configuration", () => {
  const cases: [string, Record<string, string>, RegExp][] = [
    ["gateway/dist/main.js", { PORT: "eighty" }, /PORT/],
    ["gateway/dist/main.js", { BODY_LIMIT_BYTES: "-5" }, /BODY_LIMIT_BYTES/],
    ["gateway/dist/main.js", { TRUST_PROXY: "the proxy" }, /TRUST_PROXY/],
    // The embedded gateway off loopback with the public development secret (issue 31, section 5).
    ["gateway/dist/main.js", { HOST: "0.0.0.0", PORT: "17998", LEGACY_KEY_SECRET: "" }, /LEGACY_KEY_SECRET: required when listening on 0\.0\.0\.0 \(not a loopback address\): the development secret is public/],
    ["gateway/dist/main.js", { HOST: "0.0.0.0", PORT: "17998", LEGACY_KEY_SECRET: "dev-only-legacy-key-secret-do-not-use-in-production" }, /LEGACY_KEY_SECRET: required when listening on 0\.0\.0\.0/],
    ["gateway/dist/main.js", { TRUST_PROXY: "true" }, /TRUST_PROXY.*true is refused.*set TRUST_PROXY to the addresses or CIDRs of your proxies/],
    ["gateway/dist/main.js", { STORMWATER_URL: "not a url" }, /STORMWATER_URL/],
    ["gateway/dist/main.js", { LOG_LEVEL: "loud" }, /LOG_LEVEL/],
    ["gateway/dist/main.js", { HEAP_GROWING_PERCENT: "fast" }, /HEAP_GROWING_PERCENT/],
    ["services/stormwater/dist/main.js", { PORT: "70000" }, /PORT/],
    ["services/nwp/dist/main.js", { PORT: "17999", HEAP_GROWING_PERCENT: "500" }, /HEAP_GROWING_PERCENT/],
    ["services/entitlement/dist/main.js", { PORT: "17999", PAYMENT_PROVIDER: "paypal" }, /PAYMENT_PROVIDER/],
    ["services/entitlement/dist/main.js", { PORT: "17999", LEGACY_KEY_SECRET: "short" }, /LEGACY_KEY_SECRET/],
    ["services/ratelimit/dist/main.js", { PORT: "17999", TIERS_FILE: "/nonexistent/tiers.json" }, /TIERS_FILE/],
    ["services/stormwater/dist/main.js", { PORT: "17999", EVALUATION_DATE: "2026-02-30" }, /EVALUATION_DATE/],
    ["gateway/dist/main.js", { EVALUATION_DATE: "tomorrow" }, /EVALUATION_DATE/],
    // Service-to-service credentials: none on a reachable address, a malformed list, a remote call without a token.
    ["services/entitlement/dist/main.js", { PORT: "17999", HOST: "0.0.0.0", INTERNAL_TOKENS: "" }, /INTERNAL_TOKENS: required when listening on 0\.0\.0\.0/],
    ["services/stormwater/dist/main.js", { PORT: "17999", INTERNAL_TOKENS: "gw:gateway" }, /INTERNAL_TOKENS: entry 1 must be name:scope1\+scope2:token/],
    ["services/ratelimit/dist/main.js", { PORT: "17999", INTERNAL_TOKENS: "gw:root:0123456789abcdef0123456789" }, /INTERNAL_TOKENS: entry 1 \(gw\): unknown scope root/],
    ["services/nwp/dist/main.js", { PORT: "17999", INTERNAL_TOKENS: "gw:engine:short" }, /INTERNAL_TOKENS: entry 1 \(gw\): the token must be at least 24/],
    ["gateway/dist/main.js", { STORMWATER_URL: "http://127.0.0.1:1", GATEWAY_TOKEN: "" }, /GATEWAY_TOKEN: required to call remote services \(STORMWATER_URL\)/],
    // Tracing: a value the OpenTelemetry SDK would ignore, exporting nothing.
    ["gateway/dist/main.js", { OTEL_TRACES_EXPORTER: "jaeger" }, /OTEL_TRACES_EXPORTER: unknown exporter "jaeger"/],
    ["services/nwp/dist/main.js", { PORT: "17999", OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318", OTEL_EXPORTER_OTLP_PROTOCOL: "thrift" }, /OTEL_EXPORTER_OTLP_PROTOCOL: unknown protocol "thrift"/],
  ];
  for (const [script, env, name] of cases) {
    it(`${script.split("/")[1]} exits 1 naming ${name.source}`, () => {
      const res = run(script, env);
      expect(res.status).toBe(1);
      expect(res.stderr).toMatch(name);
      expect(res.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
    });
  }
});

describe("a port already in use", () => {
  for (const script of ["gateway/dist/main.js", "services/stormwater/dist/main.js"]) {
    it(`${script.split("/")[1]} prints one line naming the port and PORT, and exits 1`, async () => {
      const port = await freePort();
      const holder = net.createServer().listen(port, "127.0.0.1");
      await once(holder, "listening");
      try {
        // Asynchronous: the holder must keep accepting while the child tries the port.
        const child = spawn(process.execPath, [path.join(ROOT, script)], { env: { ...process.env, PORT: String(port), HOST: "127.0.0.1" }, stdio: ["ignore", "ignore", "pipe"] });
        let stderr = "";
        child.stderr.on("data", (c: Buffer) => (stderr += c));
        const [code] = (await once(child, "exit")) as [number];
        expect(code).toBe(1);
        expect(stderr.trim()).toBe(`cannot listen on 127.0.0.1:${port}: the port is already in use; set PORT (or HOST) to a free address`);
      } finally {
        holder.close();
      }
    }, 20_000);
  }
});

describe("heap growth by role (HEAP_GROWING_PERCENT)", () => {
  const preload = path.join(ROOT, "test/support/record-v8-flags.cjs");
  /** The V8 flags a role sets at start, read until it listens. */
  async function flagsSetBy(script: string, env: Record<string, string>): Promise<string[]> {
    // Each process its own state: some of these run at once.
    const stateDir = mkdtempSync(path.join(os.tmpdir(), "permits-heap-flags-"));
    const child = spawn(process.execPath, ["--require", preload, path.join(ROOT, script)], {
      env: { ...process.env, HEAP_GROWING_PERCENT: "", PORT: String(await freePort()), HOST: "127.0.0.1", LOG_LEVEL: "info", STATE_DIR: stateDir, REDIS_URL: "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => (stderr += c));
    try {
      await new Promise<void>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (c: Buffer) => {
          out += c;
          if (/service listening|Server listening/.test(out)) resolve();
        });
        child.once("exit", (code) => reject(new Error(`${script} exited ${code}: ${stderr}`)));
      });
    } finally {
      child.kill("SIGKILL");
      if (child.exitCode === null && child.signalCode === null) await once(child, "exit");
      rmSync(stateDir, { recursive: true, force: true });
    }
    return [...stderr.matchAll(/^v8 flags set: (.*)$/gm)].map((m) => m[1]);
  }

  it("bounds it at 100 % by default, but leaves nwp's to V8, and takes the variable over either", async () => {
    const [stormwater, nwp, nwpSet, stormwaterSet] = await Promise.all([
      flagsSetBy("services/stormwater/dist/main.js", {}),
      flagsSetBy("services/nwp/dist/main.js", {}),
      flagsSetBy("services/nwp/dist/main.js", { HEAP_GROWING_PERCENT: "150" }),
      flagsSetBy("services/stormwater/dist/main.js", { HEAP_GROWING_PERCENT: "0" }),
    ]);
    expect(stormwater).toEqual(["--heap-growing-percent=100"]);
    expect(nwp).toEqual([]);
    expect(nwpSet).toEqual(["--heap-growing-percent=150"]);
    expect(stormwaterSet).toEqual([]);
  }, 30_000);

  it("bounds the embedded gateway's, and leaves it to V8 where every service is remote", async () => {
    // Every service of the gateway's list named remote (the list grows: sites joined it).
    const remote = { ...Object.fromEntries(SERVICES.map((s) => [urlVariable(s.name), "http://127.0.0.1:1"])), GATEWAY_TOKEN: "test-gateway-token-0123456789" };
    const [embedded, partlyRemote, allRemote, allRemoteSet] = await Promise.all([
      flagsSetBy("gateway/dist/main.js", {}),
      flagsSetBy("gateway/dist/main.js", { NWP_URL: "http://127.0.0.1:1", GATEWAY_TOKEN: remote.GATEWAY_TOKEN }),
      flagsSetBy("gateway/dist/main.js", remote),
      flagsSetBy("gateway/dist/main.js", { ...remote, HEAP_GROWING_PERCENT: "100" }),
    ]);
    expect(embedded).toEqual(["--heap-growing-percent=100"]);
    expect(partlyRemote).toEqual(["--heap-growing-percent=100"]);
    expect(allRemote).toEqual([]);
    expect(allRemoteSet).toEqual(["--heap-growing-percent=100"]);
  }, 30_000);
});

describe("the embedded gateway on a reachable address (issue 31, section 5)", () => {
  it("starts on 0.0.0.0 with its own LEGACY_KEY_SECRET, and its public port answers 404 for /metrics", async () => {
    const port = await freePort();
    const stateDir = mkdtempSync(path.join(os.tmpdir(), "permits-reachable-"));
    const child = spawn(process.execPath, [path.join(ROOT, "gateway/dist/main.js")], {
      env: { ...process.env, HOST: "0.0.0.0", PORT: String(port), METRICS_PORT: "0", STATE_DIR: stateDir, REDIS_URL: "", LEGACY_KEY_SECRET: "a-real-secret-of-this-deployment-0123" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    try {
      let up = false;
      for (let i = 0; i < 240 && !up && child.exitCode === null; i++) {
        up = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false);
        if (!up) await new Promise((r) => setTimeout(r, 250));
      }
      expect(up).toBe(true);
      const metrics = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(metrics.status).toBe(404);
      expect(((await metrics.json()) as { error: { code: string } }).error.code).toBe("not_found");
    } finally {
      child.kill("SIGTERM");
      await once(child, "exit");
      rmSync(stateDir, { recursive: true, force: true });
    }
  }, 90_000);
});

/** Every live process below `pid` (children, theirs, ...), read from /proc. */
function descendants(pid: number): number[] {
  const parentOf = new Map<number, number>();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      // The field after the parenthesised name (which may hold spaces) is the state, then the parent.
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      parentOf.set(Number(d), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  for (let frontier = [pid]; frontier.length > 0; ) {
    frontier = [...parentOf].filter(([, parent]) => frontier.includes(parent)).map(([child]) => child);
    out.push(...frontier);
  }
  return out;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.skipIf(!existsSync("/proc/self/stat"))("npm start, stopped with SIGTERM to npm (issue 41, section 4)", () => {
  it("stops the server: the port stops answering and no process it started remains", async () => {
    const port = await freePort();
    const stateDir = mkdtempSync(path.join(os.tmpdir(), "permits-npm-start-"));
    const npm = spawn("npm", ["start"], { cwd: ROOT, env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", METRICS_PORT: "0", STATE_DIR: stateDir, REDIS_URL: "" }, stdio: ["ignore", "ignore", "pipe"] });
    let below: number[] = [];
    try {
      const answers = () => fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false);
      let up = false;
      // The prestart build first (incremental: seconds when built), then the gateway.
      for (let i = 0; i < 480 && !up && npm.exitCode === null; i++) {
        up = await answers();
        if (!up) await new Promise((r) => setTimeout(r, 250));
      }
      expect(up).toBe(true);
      below = descendants(npm.pid!);
      expect(below.length).toBeGreaterThan(0);
      npm.kill("SIGTERM");
      await once(npm, "exit");
      let stopped = false;
      for (let i = 0; i < 40 && !stopped; i++) {
        stopped = !(await answers()) && below.every((pid) => !alive(pid));
        if (!stopped) await new Promise((r) => setTimeout(r, 250));
      }
      expect(await answers()).toBe(false);
      expect(below.filter(alive)).toEqual([]);
    } finally {
      for (const pid of below.filter(alive)) process.kill(pid, "SIGKILL");
      if (npm.exitCode === null && npm.signalCode === null) {
        npm.kill("SIGKILL");
        await once(npm, "exit");
      }
      rmSync(stateDir, { recursive: true, force: true });
    }
  }, 150_000);
});
