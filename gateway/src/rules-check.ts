// Sites that keep up with their rules: the gateway calls both the stormwater service (what changed
// after a dataset version) and the sites service (which versions open sites' saved answers cite, and
// which sites to mark), so it joins them: when it starts listening, and every RULES_CHECK_EVERY_MS
// after, since in the distributed deployment the stormwater service may restart with new data on
// its own. Marking is idempotent (one mark and one event per site and dataset version), so several
// gateways checking at once, or a restart, mark nothing twice. A failure is logged and retried.
import { Code, ConnectError } from "@connectrpc/connect";
import type { FactChanges } from "@permits/proto/common/v1/common";
import type { AppDeps } from "./deps.js";

/** How often a running gateway checks again. */
const RULES_CHECK_EVERY_MS = 10 * 60 * 1000;
/** The waits before the retries of a check that failed (a service not up yet at start). */
const RETRY_MS = [1000, 2000, 5000, 10_000, 30_000, 60_000];

export interface RulesCheck {
  /** The dataset version loaded now; empty when no open site cites a version. */
  datasetVersion: string;
  marked: number;
}

/** One check: what changed since each version the sites cite, handed to the sites service to mark. */
export async function checkRulesChanged(deps: Pick<AppDeps, "clients" | "logger">): Promise<RulesCheck> {
  const { sites, stormwater } = deps.clients;
  const { datasetVersions } = await sites.listCitedDatasetVersions({});
  const changes: FactChanges[] = [];
  for (const since of datasetVersions) {
    try {
      const answer = (await stormwater.getChanges({ since })).changes;
      if (answer) changes.push(answer);
    } catch (err) {
      // A version the stormwater service does not know (never released): nothing to compare it with.
      if (!(err instanceof ConnectError && err.code === Code.InvalidArgument)) throw err;
      deps.logger.warn({ since }, "rules check: a saved answer's dataset version is not in the changelog; its sites are not compared");
    }
  }
  const datasetVersion = changes[0]?.currentVersion ?? "";
  if (datasetVersion === "") return { datasetVersion, marked: 0 };
  const { marked } = await sites.markRulesChanged({ datasetVersion, changes: changes.filter((c) => c.changeCount > 0) });
  if (marked > 0) deps.logger.info({ datasetVersion, marked }, "rules check: sites marked whose rules changed");
  return { datasetVersion, marked };
}

/** Runs the check now and every RULES_CHECK_EVERY_MS, retrying a failed one; returns the stop. */
export function startRulesChecks(deps: Pick<AppDeps, "clients" | "logger">): () => void {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const schedule = (ms: number, attempt: number) => {
    if (stopped) return;
    timer = setTimeout(() => void run(attempt), ms);
    timer.unref();
  };
  const run = async (attempt: number) => {
    try {
      await checkRulesChanged(deps);
      schedule(RULES_CHECK_EVERY_MS, 0);
    } catch (err) {
      deps.logger.warn({ err: err instanceof Error ? err.message : String(err), attempt }, "rules check failed; trying again");
      schedule(RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)], attempt + 1);
    }
  };
  schedule(0, 0);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
