// The embedded gateway as real processes on one STATE_DIR, and an open-loop load of one live key,
// for the quota durability scenarios (issue 31, section 1): what each request was answered, and
// what the store holds afterwards.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { Agent, request } from "undici";
import { ROOT, freePort, startProcess, waitFor, type Proc } from "../support/processes.js";
import { editedTiersFile } from "../support/tiers.js";

export const LEGACY_KEY_SECRET = "quota-durability-secret-0123456789";
const SITE = JSON.stringify({ state: "NM", activity: "construction", acres: 3 });

/**
 * data/tiers.json with the Pro monthly ceiling set to `ceiling` (small, to keep a run short) and
 * the Pro minute burst lifted, so every refusal in these runs is the monthly ceiling's.
 */
export function proCeilingTiers(ceiling: number): string {
  return editedTiersFile((ps) =>
    ps.map((p) => (p.id === "stormwater.pro" ? { ...p, windows: [{ name: "minute", limit: 1_000_000 }, { name: "month", limit: ceiling, quota: true }] } : p)),
  );
}

/** A Pro live key issued with the key CLI (`npm run keys -- create`) straight into `stateDir`. */
export function issueProKey(stateDir: string): string {
  const cli = spawnSync(process.execPath, [path.join(ROOT, "services/entitlement/dist/cli.js"), "create", "--kind", "live", "--plan", "pro", "--label", "durability", "--json"], {
    cwd: ROOT,
    env: { ...process.env, STATE_DIR: stateDir, REDIS_URL: "", LEGACY_KEY_SECRET, LOG_LEVEL: "silent" },
    encoding: "utf8",
  });
  if (cli.status !== 0) throw new Error(`keys create failed: ${cli.stderr}`);
  return (JSON.parse(cli.stdout) as { key: string }).key;
}

export interface Gateway {
  proc: Proc;
  port: number;
  baseUrl: string;
}

/** `node gateway/dist/main.js` on `stateDir`, on `port` (a free one if absent); resolves once ready. */
export async function startGateway(stateDir: string, tiersFile: string, port?: number): Promise<Gateway> {
  const p = port ?? (await freePort());
  const proc = startProcess("gateway", "gateway/dist/main.js", { PORT: String(p), REDIS_URL: "", STATE_DIR: stateDir, TIERS_FILE: tiersFile, LEGACY_KEY_SECRET });
  const baseUrl = `http://127.0.0.1:${p}`;
  try {
    await waitFor(async () => (await fetch(`${baseUrl}/readyz`)).status === 200, 60_000, "the embedded gateway");
  } catch (e) {
    proc.child.kill("SIGKILL");
    throw new Error(`${(e as Error).message}\n${proc.output()}`);
  }
  return { proc, port: p, baseUrl };
}

/** kill -9, resolved once the process is gone. */
export async function kill9(gw: Gateway): Promise<void> {
  if (gw.proc.child.exitCode !== null || gw.proc.child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => gw.proc.child.once("exit", () => resolve()));
  gw.proc.child.kill("SIGKILL");
  await gone;
}

export async function stop(gw: Gateway): Promise<void> {
  if (gw.proc.child.exitCode !== null || gw.proc.child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => gw.proc.child.once("exit", () => resolve()));
  gw.proc.child.kill("SIGTERM");
  setTimeout(() => gw.proc.child.kill("SIGKILL"), 5000).unref();
  await gone;
}

/** What one load's requests were answered. */
export interface Tally {
  sent: number;
  ok: number;
  /** 429 rate_limited naming the monthly ceiling. */
  refused: number;
  /** ECONNREFUSED: no server listening (between a kill and the restart), so nothing was counted. */
  noServer: number;
  /** Any other failure: cut by a kill while in flight, so whether it was counted is unknown. */
  cut: number;
  /** The cut requests' error codes, for the failure message. */
  cutCodes: Record<string, number>;
  /** Anything else (a status that is neither 200 nor the ceiling's 429), for the failure message. */
  other: string[];
}

/**
 * Sends `rate` determinations a second with `key` to `target()` (which may change between
 * requests: a restarted gateway) until `until(tally)` holds, then waits for every answer.
 */
export async function drive(target: () => string, key: string, rate: number, until: (t: Tally) => boolean): Promise<Tally> {
  const t: Tally = { sent: 0, ok: 0, refused: 0, noServer: 0, cut: 0, cutCodes: {}, other: [] };
  // A bounded pool, as a well-behaved client keeps: the gateway resets connections past its
  // per-address cap (MAX_CONNECTIONS_PER_ADDRESS), which is not what these runs measure.
  const agent = new Agent({ connections: 32 });
  const pending = new Set<Promise<void>>();
  const t0 = performance.now();
  while (!until(t)) {
    const due = Math.floor((rate * (performance.now() - t0)) / 1000) + 1;
    for (; t.sent < due; t.sent++) {
      const p = one(agent, target(), key, t).finally(() => pending.delete(p));
      pending.add(p);
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  while (pending.size > 0) await Promise.all([...pending]);
  await agent.close();
  return t;
}

async function one(agent: Agent, baseUrl: string, key: string, t: Tally): Promise<void> {
  try {
    const res = await request(`${baseUrl}/api/v1/determine`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: SITE,
      dispatcher: agent,
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.body.text();
    if (res.statusCode === 200) t.ok++;
    else if (res.statusCode === 429 && text.includes("rate_limited") && text.includes("monthly ceiling")) t.refused++;
    else t.other.push(`${res.statusCode} ${text.slice(0, 120)}`);
  } catch (e) {
    const err = e as Error & { code?: string; cause?: { code?: string } };
    const code = err.code ?? err.cause?.code ?? err.name;
    if (code === "ECONNREFUSED") t.noServer++;
    else {
      t.cut++;
      t.cutCodes[code] = (t.cutCodes[code] ?? 0) + 1;
    }
  }
}

/** The month's count as the store holds it, read through `GET /api/v1/usage`. */
export async function monthUsed(baseUrl: string, key: string): Promise<number> {
  const res = await fetch(`${baseUrl}/api/v1/usage`, { headers: { authorization: `Bearer ${key}` } });
  const body = (await res.json()) as { data: { windows: Array<{ name: string; used: number }> } };
  return body.data.windows.find((w) => w.name === "month")!.used;
}
