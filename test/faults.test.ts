// Fault scenarios against the distributed deployment under a steady load (issue 15): nwp killed
// and restarted, the gateway sent SIGTERM, Redis stopped and restarted, the payment provider
// unreachable then slow; and (issue 31) Redis frozen with SIGSTOP, and the entitlement service
// frozen then killed, where circuit breakers answer the outage at once and keyless callers never
// notice. Each scenario returns measured figures (test/faults/); this file holds them to the
// issues' expectations.
//
// Short form: 3 s at 50 requests/s per scenario. `npm test` runs three scenarios in it (nwp
// killed, the gateway's SIGTERM, the payment provider; about 25 s); `npm run faults:short`
// (FAULTS_ALL=1, run by CI once) runs all six, about 65 s: the three dependency outages it adds
// (Redis stopped, Redis frozen, entitlement frozen) each need a deployment and 8 s or more, and
// npm test covers them below the load: test/silent-redis.test.ts (Redis frozen, end to end),
// services/ratelimit/src/resilient-store.test.ts (Redis stopped and back, shared counting
// resumes), test/entitlement-redis-start.test.ts, and the breakers' own tests
// (gateway/src/rpc/breaker.test.ts, packages/runtime/src/breaker.test.ts).
// Full form (`npm run faults`, FAULTS_FULL=1): all six, 20 s at 200 requests/s per scenario, then
// the table is printed. 200/s is what this 2-core machine serves with five or six server
// processes, Redis and the load generator sharing it, with room left so latency stays far from
// the bounds.
import { afterAll, describe, expect, inject, it } from "vitest";
import { FROZEN_MIN_DURATION_MS } from "./faults/frozen.js";
import { entitlementFrozenKilled, gatewaySigterm, nwpKillRestart, providerOutage, redisFrozen, redisKillRestart, type Row } from "./faults/scenarios.js";
import { RECOVERY_BOUND_MS } from "./faults/nwp-restart.js";
import { TIMEOUT_MS } from "./faults/provider-outage.js";
import { closeAll } from "./faults/resources.js";
import { formatTable } from "./faults/table.js";

const FULL = process.env.FAULTS_FULL === "1";
/**
 * Every scenario (the full form, or `npm run faults:short`); npm test runs three. The others are
 * left unregistered rather than skipped there: CI counts a skipped test as a failure.
 */
const ALL = FULL || process.env.FAULTS_ALL === "1";
const options = FULL ? { durationMs: 20_000, rate: 200 } : { durationMs: 3000, rate: 50 };
const TIMEOUT = FULL ? 120_000 : 45_000;
/** The scenarios that start a deployment, restart or thaw a part and wait for recovery. */
const LONG_TIMEOUT = FULL ? 180_000 : 90_000;

const rows: Row[] = [];
afterAll(async () => {
  if (FULL) console.log(`\n${formatTable(rows, `Fault scenarios: ${options.durationMs / 1000} s at ${options.rate} requests/s each`)}\n`);
  await closeAll();
});

/** Runs a scenario and keeps its row for the table, whatever the assertions then say. */
async function run(scenario: (o: typeof options) => Promise<Row>, o = options): Promise<Row> {
  const row = await scenario(o);
  rows.push(row);
  // The short form prints no table: a failing row shows its figures here.
  if (!FULL && row.violations.length > 0) console.log(`\n${formatTable([row], "Failed scenario")}\n`);
  expect(row.sent).toBe(Math.round((o.rate * o.durationMs) / 1000));
  return row;
}

describe.sequential(`fault scenarios (${FULL ? "full" : "short"} form${ALL ? "" : ", three of six"})`, () => {
  it("nwp kill -9: documented 503s with Retry-After while down, 200 within 2 s of the restart, no gateway restart", async () => {
    const row = await run(nwpKillRestart);
    expect(row.violations).toEqual([]);
    expect(Object.keys(row.statuses).sort()).toEqual(["200", "503"]);
    const f = row.figures;
    expect(f["outage 503s"]).toBeGreaterThan(0);
    expect(f["outage 503s documented (Retry-After, internal_error)"]).toBe(f["outage 503s"]);
    expect(row.statuses["503"]).toBe(f["outage 503s"]);
    expect(f["stormwater non-200"]).toBe(0);
    expect(f["restart -> first 200 (ms)"]).toBeTypeOf("number");
    expect(f["restart -> first 200 (ms)"]).toBeLessThanOrEqual(RECOVERY_BOUND_MS);
    expect(f["gateway restarts"]).toBe(0);
  }, TIMEOUT);

  it("gateway SIGTERM: every request in flight answered (0 cut), later ones refused cleanly", async () => {
    const row = await run(gatewaySigterm);
    expect(row.violations).toEqual([]);
    const f = row.figures as Record<string, number>;
    expect(f["in flight at SIGTERM"]).toBeGreaterThan(0);
    expect(f["batches in flight at SIGTERM"]).toBeGreaterThan(0);
    expect(f["in flight cut"]).toBe(0);
    expect(f["in flight answered 200"] + f["in flight answered 503 (documented)"]).toBe(f["in flight at SIGTERM"]);
    expect(f["after: other failures"]).toBe(0);
    expect(f["after: served 200 (before the drain began)"] + f["after: 503 documented"] + f["after: ECONNREFUSED"] + f["after: reset unread as the listener closed"]).toBe(f["sent after SIGTERM"]);
    // Once the gateway is gone nothing listens: the rest of the run is refused connections.
    expect(f["after: ECONNREFUSED"]).toBeGreaterThan(0);
    expect(f["gateway exit code"]).toBe(0);
  }, TIMEOUT);

  if (ALL) it.skipIf(!inject("prerequisites").redisServer)("Redis stopped and restarted: 0 failed anonymous or sandbox calls, keyed 503 with Retry-After, shared counting resumes", async () => {
    const row = await run(redisKillRestart);
    expect(row.violations).toEqual([]);
    const f = row.figures;
    expect(f["anonymous+sandbox sent"]).toBeGreaterThan(0);
    expect(f["anonymous+sandbox failed"]).toBe(0);
    expect(f["keyed 503 documented (Retry-After, internal)"]).toBeGreaterThan(0);
    expect(row.statuses["503"]).toBe(f["keyed 503 documented (Retry-After, internal)"]);
    expect(f["keyed Retry-After values"]).toBe("2");
    expect(f["restart -> keyed 200 on A (ms)"]).toBeTypeOf("number");
    expect(f["restart -> keyed 200 on B (ms)"]).toBeTypeOf("number");
    expect(f["shared counting before"]).toBe(true);
    expect(f["shared counting after"]).toBe(true);
  }, TIMEOUT);

  it("payment provider unreachable and slow: 503 entitlement_check_unavailable on 100 % of legacy calls, 0 downgrades to free", async () => {
    const row = await run(providerOutage);
    expect(row.violations).toEqual([]);
    const f = row.figures;
    expect(f["before the fault (active / canceled)"]).toBe("200 pro / 200 free");
    expect(f["legacy calls while unreachable"]).toBeGreaterThan(0);
    expect(f["legacy calls while slow"]).toBeGreaterThan(0);
    expect(f["legacy 503 entitlement_check_unavailable"]).toBe(f["legacy calls"]);
    expect(f["legacy 503 share"]).toBe("100.0 %");
    expect(f["downgrades to free"]).toBe(0);
    // The slow provider was waited on for the timeout, not longer (bound in provider-outage.ts).
    expect(f["slowest legacy answer, slow (ms)"]).toBeGreaterThanOrEqual(TIMEOUT_MS);
    expect(f["sandbox+anonymous non-200"]).toBe(0);
    expect(f["pro again after the provider returned"]).toBe(true);
  }, TIMEOUT);

  if (ALL) it.skipIf(!inject("prerequisites").redisServer)("Redis frozen (SIGSTOP): keyless and sandbox 200 throughout; keyed 503 with Retry-After, at once once the breaker is open", async () => {
    const row = await run(redisFrozen, { ...options, durationMs: Math.max(options.durationMs, FROZEN_MIN_DURATION_MS) });
    expect(row.violations).toEqual([]);
    const f = row.figures;
    expect(f["keyless+sandbox non-200"]).toBe(0);
    expect(f["frozen: keyed 503s"]).toBeGreaterThan(0);
    expect(f["keyed 503 documented (Retry-After)"]).toBe(row.statuses["503"]);
  }, LONG_TIMEOUT);

  if (ALL) it("entitlement frozen, then killed: keyless, sandbox and sandbox-NWP callers 200 throughout; keyed 503 at once once the breaker is open; 200 after the restart", async () => {
    const row = await run(entitlementFrozenKilled, { ...options, durationMs: Math.max(options.durationMs, FROZEN_MIN_DURATION_MS) });
    expect(row.violations).toEqual([]);
    const f = row.figures;
    expect(f["keyless+sandbox sent"]).toBeGreaterThan(0);
    expect(f["keyless+sandbox non-200"]).toBe(0);
    expect(f["frozen: keyed 503s"]).toBeGreaterThan(0);
    expect(f["killed: keyed 503s"]).toBeGreaterThan(0);
    expect(f["keyed 503 documented (Retry-After)"]).toBe(row.statuses["503"]);
    expect(f["keyed 200 after the restart"]).toBe(true);
  }, LONG_TIMEOUT);
});
