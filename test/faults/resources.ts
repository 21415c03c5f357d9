// Everything a scenario starts is registered here, so it is stopped even when the scenario
// throws or the test times out and vitest moves on (closeAll in afterAll), and child processes
// are killed if this process exits without that.
import { once } from "node:events";
import type { ChildProcess } from "node:child_process";

const closers = new Set<() => Promise<void>>();
const children = new Set<ChildProcess>();

process.once("exit", () => {
  for (const c of children) if (isRunning(c)) c.kill("SIGKILL");
});

export function isRunning(c: ChildProcess): boolean {
  return c.exitCode === null && c.signalCode === null;
}

/** Registers a child process to kill at exit as a last resort (its orderly stop is a closer). */
export function trackChild(c: ChildProcess): ChildProcess {
  children.add(c);
  c.once("exit", () => children.delete(c));
  return c;
}

/** Registers a cleanup; the returned function runs it (once) and unregisters it. */
export function track(close: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  const run = () => {
    closers.delete(run);
    return (done ??= close());
  };
  closers.add(run);
  return run;
}

/** Runs every registered cleanup; errors are collected and thrown together. */
export async function closeAll(): Promise<void> {
  const results = await Promise.allSettled([...closers].map((c) => c()));
  const failed = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed.length) throw new AggregateError(failed.map((f) => f.reason), "cleanup failed");
}

/** SIGTERM, SIGKILL after `graceMs`, resolved once the process is gone. */
export async function stopChild(c: ChildProcess, graceMs = 5000): Promise<void> {
  if (!isRunning(c)) return;
  const exited = once(c, "exit");
  c.kill("SIGTERM");
  const timer = setTimeout(() => c.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}
