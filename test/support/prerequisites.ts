// What the suite needs beyond Node and npm, probed once per run (vitest globalSetup) and handed to
// the test files through `inject("prerequisites")`. A test whose tool is missing is skipped, and this
// prints one line naming the tool and how to install it, so `npm test` passes on a machine with Node and
// npm alone. `.ci/run` installs every tool and fails the run when any test was skipped.
import { spawnSync } from "node:child_process";
import { createConnection } from "node:net";
import type { TestProject } from "vitest/node";

export interface Prerequisites {
  /** Debian's chromium at CHROMIUM_PATH (default /usr/bin/chromium): the browser tests. */
  chromium: boolean;
  /** kubectl with its kustomize: the Kubernetes manifests are rendered by it. */
  kubectl: boolean;
  /** The redis-server binary: tests that start, stop and freeze a private Redis. */
  redisServer: boolean;
  /** A Redis answering at TEST_REDIS_URL (default redis://127.0.0.1:6379): the Redis-backed stores. */
  redis: boolean;
  /** jq on PATH: the README's examples are run through it, as a reader runs them. */
  jq: boolean;
  /** A PostgreSQL accepting connections at TEST_POSTGRES_URL's host (default 127.0.0.1:5432): the sites service's distributed database. */
  postgres: boolean;
}

declare module "vitest" {
  export interface ProvidedContext {
    prerequisites: Prerequisites;
  }
}

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
export const TEST_POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

const HOW: Record<keyof Prerequisites, string> = {
  chromium: `Debian's chromium at ${CHROMIUM_PATH} (apt-get install chromium fonts-liberation, or set CHROMIUM_PATH)`,
  kubectl: "kubectl on PATH (apt-get install kubectl, or any kubectl >= 1.27 with kustomize v5)",
  redisServer: "redis-server on PATH (apt-get install redis-server)",
  jq: "jq on PATH (apt-get install jq)",
  redis: `a Redis answering at ${TEST_REDIS_URL} (start one: redis-server --daemonize yes --save "" --appendonly no)`,
  postgres: `a PostgreSQL at ${TEST_POSTGRES_URL} that lets the tests create a database (start one: pg_ctlcluster 15 main start)`,
};

const runs = (cmd: string, args: string[]) => spawnSync(cmd, args, { stdio: "ignore", timeout: 10_000 }).status === 0;

/**
 * Whether something answers at the URL's host and port: with `exchange`, the reply to what it sends
 * must satisfy it (no client library, no reconnect loop); without, accepting the connection is enough.
 */
function socketAnswers(url: string, defaultPort: number, exchange?: { send: string; ok: (reply: string) => boolean }): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = createConnection({ host: hostname.replace(/^\[|\]$/g, ""), port: Number(port || defaultPort) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.on("error", () => done(false));
    socket.on("connect", () => (exchange ? socket.write(exchange.send) : done(true)));
    socket.on("data", (d) => done(exchange?.ok(d.toString()) ?? true));
  });
}

/** One PING on a plain socket. */
const redisAnswers = (url: string) => socketAnswers(url, 6379, { send: "PING\r\n", ok: (reply) => reply.startsWith("+PONG") });
/** PostgreSQL's port accepts a connection: the tests themselves say if the server then refuses them. */
const postgresListens = (url: string) => socketAnswers(url, 5432);

export async function probePrerequisites(): Promise<Prerequisites> {
  return {
    chromium: runs(CHROMIUM_PATH, ["--version"]),
    kubectl: runs("kubectl", ["version", "--client"]),
    redisServer: runs("redis-server", ["--version"]),
    redis: await redisAnswers(TEST_REDIS_URL),
    jq: runs("jq", ["--version"]),
    postgres: await postgresListens(TEST_POSTGRES_URL),
  };
}

/** vitest globalSetup: probe, say what will be skipped, provide the answer to every test file. */
export default async function setup(project: TestProject): Promise<void> {
  const found = await probePrerequisites();
  for (const [tool, ok] of Object.entries(found) as [keyof Prerequisites, boolean][]) {
    if (!ok) console.warn(`[prerequisites] SKIPPING the tests that need ${HOW[tool]}`);
  }
  project.provide("prerequisites", found);
}
