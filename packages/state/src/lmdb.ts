// The embedded state: LMDB environments, one file per service, in STATE_DIR. Several processes
// (a server and the key CLI, two gateways) may open one file at once; LMDB's lock is shared.
import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { RootDatabase } from "lmdb";

export type { Database, RootDatabase } from "lmdb";

export interface LmdbOptions {
  /** Named databases the environment may hold. */
  maxDbs: number;
  /** Commit without syncing to disk (unit tests of counting rules only; a power loss may lose commits). */
  noSync?: boolean;
}

/** Opens (creating it, and STATE_DIR, if needed) `stateDir/file`. */
export async function openLmdb(stateDir: string, file: string, options: LmdbOptions): Promise<RootDatabase> {
  await mkdir(stateDir, { recursive: true, mode: 0o700 }); // holds key hashes and counts: owner only
  // lmdb (a native module) is loaded on first open, not at import: a process whose state is on
  // Redis, or whose services are remote, never loads it.
  const { open } = await import("lmdb");
  return open({ path: path.join(stateDir, file), maxDbs: options.maxDbs, noSync: options.noSync === true });
}
