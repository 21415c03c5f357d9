// The distributed deployment as real processes: every service of the gateway's list and the
// gateway, each from its built output (npm run start:* runs the same files), on free loopback
// ports, HTTP/2 between them.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createClient } from "redis";
import { SERVICES, urlVariable } from "@permits/gateway/services";
import { editedTiersFile } from "./tiers.js";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Service-to-service credentials of the test deployments (test values, never used elsewhere). */
export const TEST_TOKENS = {
  gateway: "test-gateway-token-0123456789abcdef",
  admin: "test-admin-token-0123456789abcdef",
  engine: "test-engine-token-0123456789abcdef",
} as const;
/** Tests that call entitlement directly to set subscriptions up and recover keys hold both scopes. */
export const TEST_OPERATOR_TOKEN = "test-operator-token-0123456789abcdef";
export const TEST_INTERNAL_TOKENS = [
  ...Object.entries(TEST_TOKENS).map(([scope, token]) => `${scope}:${scope}:${token}`),
  `operator:admin+gateway:${TEST_OPERATOR_TOKEN}`,
].join(",");

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** A copy of data/tiers.json with every limit multiplied, so suites that are not about limits never hit one. */
export function generousTiersFile(factor = 1000): string {
  return editedTiersFile((policies) => policies.map((p) => ({ ...p, windows: p.windows.map((w) => ({ ...w, limit: w.limit * factor })) })));
}

export interface Proc {
  name: string;
  child: ChildProcess;
  output: () => string;
}

export function startProcess(name: string, script: string, env: Record<string, string>, root = ROOT): Proc {
  const child = spawn(process.execPath, [path.join(root, script)], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  return { name, child, output: () => out };
}

export async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface GatewayProcess {
  proc: Proc;
  port: number;
  baseUrl: string;
  /** Stops the gateway and removes its state folder. */
  stop(): void;
}

/**
 * The embedded gateway as a process (what `npm start` runs once built), on a free loopback port
 * with its own state folder, ready when this resolves. `root`: a tree holding the built output.
 */
export async function startGatewayProcess(env: Record<string, string> = {}, root = ROOT): Promise<GatewayProcess> {
  // As startDistributed: a start whose process lost its port to another test's is made again.
  for (let attempt = 1; ; attempt++) {
    const g = await startGatewayProcessOnce(env, root);
    if (listensOn(g.proc.child.pid, g.port) || attempt === 3) return g;
    g.stop();
  }
}

async function startGatewayProcessOnce(env: Record<string, string>, root: string): Promise<GatewayProcess> {
  if (root === ROOT) ensureBuilt();
  const port = await freePort();
  const stateDir = mkdtempSync(path.join(os.tmpdir(), "permits-state-"));
  const proc = startProcess("gateway", "gateway/dist/main.js", { PORT: String(port), REDIS_URL: "", STATE_DIR: stateDir, ...env }, root);
  const stop = () => {
    proc.child.kill("SIGTERM");
    rmSync(stateDir, { recursive: true, force: true });
  };
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitFor(async () => (await fetch(`${baseUrl}/readyz`)).status === 200, 20_000, "the gateway");
  } catch (e) {
    stop();
    throw new Error(`${(e as Error).message}\n${proc.output()}`);
  }
  return { proc, port, baseUrl, stop };
}

export interface Distributed {
  baseUrl: string;
  /** Each service's own address, for tests that call a service directly. */
  serviceUrls: Record<string, string>;
  procs: Proc[];
  /**
   * Starts the named process again with the script, env and port it was started with (after it
   * died or was killed), in its place in `procs`, so `close` stops the new one. Does not wait.
   */
  restart(name: string): Proc;
  close(): Promise<void>;
}

let built = false;
/** The processes run the built output: bring it up to date first (incremental, fast when fresh). */
export function ensureBuilt(): void {
  if (built) return;
  execFileSync(process.execPath, [path.join(ROOT, "node_modules/typescript/bin/tsc"), "-b"], { cwd: ROOT, stdio: "inherit" });
  built = true;
}

/**
 * `root`: a tree holding the built output (this checkout, or a production copy of it). A free
 * port can be taken by another test's process between freePort() and the child's listen: the
 * child then exits, and the readiness check may be answered by that other process. Such a start
 * is thrown away and made again on new ports.
 */
export async function startDistributed(env: Record<string, string> = {}, root = ROOT): Promise<Distributed> {
  for (let attempt = 1; ; attempt++) {
    const d = await startDistributedOnce(env, root);
    const ports = [...Object.values(d.serviceUrls), d.baseUrl].map((u) => Number(new URL(u).port));
    if (d.procs.every((p, i) => listensOn(p.child.pid, ports[i])) || attempt === 3) return d;
    await d.close();
  }
}

/**
 * Whether process `pid` holds the listening socket of `port` (Linux: /proc/net/tcp and the
 * process's descriptors); true where /proc cannot tell.
 */
export function listensOn(pid: number | undefined, port: number): boolean {
  if (pid === undefined) return false;
  const hexPort = `:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  const inodes = new Set<string>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    if (!existsSync(table)) continue;
    for (const line of readFileSync(table, "utf8").split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      // local_address ends with the port; state 0A is LISTEN; field 9 is the socket's inode.
      if (f.length > 9 && f[1].endsWith(hexPort) && f[3] === "0A") inodes.add(f[9]);
    }
  }
  if (inodes.size === 0) return !existsSync("/proc/net/tcp");
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        return m !== null && inodes.has(m[1]);
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

async function startDistributedOnce(env: Record<string, string>, root: string): Promise<Distributed> {
  if (root === ROOT) ensureBuilt();
  const stateDir = mkdtempSync(path.join(os.tmpdir(), "permits-state-"));
  // The sites service keeps its records in SQLite under this STATE_DIR unless `env` names a DATABASE_URL.
  const common = { STATE_DIR: stateDir, REDIS_URL: "", DATABASE_URL: "", INTERNAL_TOKENS: TEST_INTERNAL_TOKENS, GATEWAY_TOKEN: TEST_TOKENS.gateway, ...env };
  const procs: Proc[] = [];
  const urls: Record<string, string> = {};
  // How each process was started, for restart().
  const started = new Map<string, { script: string; env: Record<string, string> }>();
  const launch = (name: string, script: string, env: Record<string, string>) => {
    started.set(name, { script, env });
    procs.push(startProcess(name, script, env, root));
  };
  for (const { name } of SERVICES) {
    const port = await freePort();
    launch(name, `services/${name}/dist/main.js`, { ...common, PORT: String(port) });
    urls[urlVariable(name)] = `http://127.0.0.1:${port}`;
  }
  const gatewayPort = await freePort();
  launch("gateway", "gateway/dist/main.js", { ...common, ...urls, PORT: String(gatewayPort) });
  const restart = (name: string): Proc => {
    const how = started.get(name);
    const i = procs.findIndex((p) => p.name === name);
    if (!how || i < 0) throw new Error(`no process named ${name}`);
    if (procs[i].child.exitCode === null && procs[i].child.signalCode === null) throw new Error(`${name} is still running`);
    procs[i] = startProcess(name, how.script, how.env, root);
    return procs[i];
  };
  const baseUrl = `http://127.0.0.1:${gatewayPort}`;
  const close = async () => {
    await Promise.all(
      procs.map(
        (p) =>
          new Promise<void>((resolve) => {
            // A process killed by a signal has no exit code, only a signal code.
            if (p.child.exitCode !== null || p.child.signalCode !== null) return resolve();
            p.child.once("exit", () => resolve());
            p.child.kill("SIGTERM");
            setTimeout(() => p.child.kill("SIGKILL"), 5000).unref();
          }),
      ),
    );
    rmSync(stateDir, { recursive: true, force: true });
  };
  try {
    // Generous: five processes loading datasets on a busy 2-core machine can take half a minute.
    await waitFor(async () => (await fetch(`${baseUrl}/readyz`)).status === 200, 60_000, "the distributed deployment to be ready");
  } catch (e) {
    const logs = procs.map((p) => `--- ${p.name} (exit ${p.child.exitCode})\n${p.output()}`).join("\n");
    await close();
    throw new Error(`${(e as Error).message}\n${logs}`);
  }
  return { baseUrl, serviceUrls: urls, procs, restart, close };
}

/**
 * A private redis-server on `port` (no persistence unless `extraArgs` turn it on, e.g.
 * `["--appendonly", "yes", "--dir", dir]`: later arguments override earlier ones), resolved once it answers.
 */
export async function startRedisServer(port: number, extraArgs: string[] = []): Promise<ChildProcess> {
  const server = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", ...extraArgs], { stdio: "ignore" });
  try {
    await waitFor(async () => {
      const c = createClient({ url: `redis://127.0.0.1:${port}`, socket: { reconnectStrategy: false } });
      c.on("error", () => {});
      await c.connect();
      await c.close();
      return true;
    }, 10_000, "redis-server");
  } catch (e) {
    server.kill("SIGKILL"); // never ready: leave no stray server behind the failing test
    throw e;
  }
  return server;
}
