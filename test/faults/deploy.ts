// The deployments the scenarios run against, registered for cleanup (resources.ts).
import { once } from "node:events";
import { rmSync } from "node:fs";
import path from "node:path";
import { generousTiersFile, startDistributed, type Distributed, type Proc } from "../support/processes.js";
import { isRunning, track, trackChild } from "./resources.js";
import { now, sleep } from "./load.js";

export const SANDBOX = "svc_sandbox_public";
export const JSON_HEADERS = { "content-type": "application/json" };
export const SITE = JSON.stringify({ state: "TX", activity: "construction", acres: 5 });
export const PROJECT = JSON.stringify({ state: "CA", district: "SPK", activity: "residential-development", aquaticResourceType: "wetland", permanentImpactAcres: 0.3 });

export interface Deployment extends Distributed {
  proc(name: string): Proc;
  /** Stops every process and removes the state folder (also run by closeAll). */
  close(): Promise<void>;
}

/** A tiers file whose limits never bind (the load is not about rate limits), removed by closeAll. */
export function tiersFile(): string {
  const file = generousTiersFile();
  track(async () => rmSync(path.dirname(file), { recursive: true, force: true }));
  return file;
}

/**
 * Gateway settings of every scenario: the load stands for many clients but comes from one
 * loopback address, which the per-address connection cap (meant for one client) would refuse.
 */
export const GATEWAY_ENV = { MAX_CONNECTIONS_PER_ADDRESS: "0" };

/** startDistributed (with tiersFile() unless env names one), tracked. */
export async function distributed(env: Record<string, string> = {}): Promise<Deployment> {
  const TIERS_FILE = env.TIERS_FILE ?? tiersFile();
  const d = await startDistributed({ ...GATEWAY_ENV, ...env, TIERS_FILE });
  for (const p of d.procs) trackChild(p.child);
  const close = track(() => d.close());
  return {
    ...d,
    close,
    proc: (name) => d.procs.find((p) => p.name === name)!,
    restart: (name) => {
      const p = d.restart(name);
      trackChild(p.child);
      return p;
    },
  };
}

/** SIGKILL, resolved once the process is gone. */
export async function killHard(p: Proc): Promise<void> {
  if (!isRunning(p.child)) return;
  const exited = once(p.child, "exit");
  p.child.kill("SIGKILL");
  await exited;
}

/** Polls `check` every `everyMs` until it holds; resolves with the time it did, or undefined after `timeoutMs`. */
export async function when(check: () => Promise<boolean>, timeoutMs: number, everyMs = 20): Promise<number | undefined> {
  const deadline = now() + timeoutMs;
  while (now() < deadline) {
    if (await check().catch(() => false)) return now();
    await sleep(everyMs);
  }
  return undefined;
}

/** Sleeps until `t0 + offsetMs` (performance.now() clock). */
export const until = (t0: number, offsetMs: number): Promise<void> => sleep(Math.max(0, t0 + offsetMs - now()));
