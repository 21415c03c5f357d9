// SIGTERM to the gateway under load. Expected: every request in flight at the signal gets an
// answer (0 cut: the drain), and every later one is refused cleanly: the documented 503 with
// Retry-After in its surface's vocabulary, or ECONNREFUSED once the listener is closed. A
// connection reset at the instant the listener closes is a refusal too, but only if the gateway
// cut no connection it had taken up (it logs any it cuts at the drain's deadline): then the reset
// one sat in the system's queue of connections not yet taken up, and the gateway read none of it.
//
// Keep-alive stays on (undici's pool, as most clients): new requests then go out on connections
// the gateway already accepted, which exercises the documented 503 for "a request that arrives on
// an open connection" while draining, not only the refused connect. It also exposes the race
// keep-alive has: a request written on a connection the server is closing as idle would come
// back as a reset or "other side closed", which counts as a violation here (the drain leaves idle
// connections open for the keep-alive time its Keep-Alive header announced: KEEP_ALIVE_TIMEOUT_MS,
// shortened here so that undici's pool lets them go 0.5 s after their last answer).
import { once } from "node:events";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { sendToken } from "@permits/rpc";
import { EntitlementService, SubscriptionStatus } from "@permits/proto/entitlement/v1/entitlement";
import { TEST_OPERATOR_TOKEN } from "../support/processes.js";
import { distributed, JSON_HEADERS, PROJECT, SANDBOX, SITE, until, when } from "./deploy.js";
import { now, sleep, startLoad, type Outcome, type Target } from "./load.js";
import { checkAnswer, isDocumented503, ms, statusCounts, Violations, type Row, type ScenarioOptions } from "./row.js";

/** Connection failures that mean "nobody listens any more": clean for a request sent after the signal. */
const REFUSED = new Set(["ECONNREFUSED"]);
/** A connection the system accepted for the listener, reset when it closed: clean if the gateway cut nothing. */
const RESET = "ECONNRESET";
/** The gateway's warning when its drain cut connections at the deadline (socket-edges.ts). */
const CUT_LINE = "drain deadline passed";
/** undici keeps an idle connection for the server's keep-alive time less 2 s: 0.5 s here. */
const KEEP_ALIVE_TIMEOUT_MS = "2500";
const BATCH_SIZE = 25;
const BATCH_EVERY = 8;
const BATCH = JSON.stringify({ projects: Array(BATCH_SIZE).fill(JSON.parse(PROJECT)) });

export async function gatewaySigterm({ durationMs, rate }: ScenarioOptions): Promise<Row> {
  const d = await distributed({ KEEP_ALIVE_TIMEOUT_MS });
  try {
    const gateway = d.proc("gateway").child;
    // A Pro subscriber's batches take longest, so the drain has real work to wait for.
    const entitlement = createClient(EntitlementService, createConnectTransport({ baseUrl: d.serviceUrls.ENTITLEMENT_URL, httpVersion: "1.1", interceptors: [sendToken(TEST_OPERATOR_TOKEN)] }));
    await entitlement.setLocalSubscription({ subscriptionId: "sub_faults_drain", status: SubscriptionStatus.ACTIVE });
    const pro = (await entitlement.recoverLegacyKey({ subscriptionId: "sub_faults_drain" })).apiKey;
    const targets: Target[] = [
      { label: "stormwater determine", surface: "doc1", method: "POST", url: `${d.baseUrl}/api/v1/determine`, headers: JSON_HEADERS, body: SITE },
      { label: "nwp determine", surface: "doc2", method: "POST", url: `${d.baseUrl}/api/v1/determine/nwp`, headers: { ...JSON_HEADERS, "x-api-key": SANDBOX }, body: PROJECT },
      { label: "jurisdictions", surface: "doc1", method: "GET", url: `${d.baseUrl}/api/v1/jurisdictions` },
    ];
    const batch: Target = { label: "nwp batch", surface: "doc2", method: "POST", url: `${d.baseUrl}/api/v1/determine/batch`, headers: { ...JSON_HEADERS, "x-api-key": pro }, body: BATCH };
    const t0 = now();
    // One request in BATCH_EVERY is a batch: enough long requests, not so many that they saturate nwp.
    let batchSentAt = 0;
    const pick = (i: number) => {
      if (i % BATCH_EVERY !== 0) return targets[i % targets.length];
      batchSentAt = now();
      return batch;
    };
    const load = startLoad({ rate, durationMs, pick });
    // Early enough that the drain (about the 0.5 s idle connections are kept) ends within the run.
    await until(t0, durationMs * 0.3);
    // The signal lands while a batch is in flight, or the drain would have nothing to prove:
    // just after one went out, once it had a moment to reach the gateway.
    const mark = now();
    await when(async () => batchSentAt > mark, 2000, 1);
    await sleep(3);
    const exited = once(gateway, "exit");
    const signalAt = now();
    gateway.kill("SIGTERM");
    const [code] = (await exited) as [number | null];
    const exitAt = now();
    const outcomes = await load.done;
    return judge(outcomes, t0, signalAt, exitAt, code, d.proc("gateway").output().includes(CUT_LINE));
  } finally {
    await d.close();
  }
}

function judge(outcomes: Outcome[], t0: number, signalAt: number, exitAt: number, exitCode: number | null, gatewayCut: boolean): Row {
  const v = new Violations(t0);
  const refused = (o: Outcome) => o.error !== undefined && (REFUSED.has(o.error) || (o.error === RESET && !gatewayCut));
  const inFlight = outcomes.filter((o) => o.startedAt < signalAt && o.endedAt > signalAt);
  const after = outcomes.filter((o) => o.startedAt >= signalAt);
  let cut = 0;
  for (const o of outcomes) {
    checkAnswer(o, v);
    if (o.startedAt < signalAt) {
      if (o.error && o.endedAt > signalAt) {
        // In flight at the signal and never answered: the drain cut it.
        cut++;
        v.add(`${o.label}: in flight at SIGTERM, cut (${o.error})`, o.startedAt);
      } else if (o.error) {
        v.add(`${o.label}: failed before SIGTERM (${o.error})`, o.startedAt);
      } else if (o.status !== 200 && !isDocumented503(o)) {
        v.add(`${o.label}: ${o.status} ${o.code ?? ""} before the gateway stopped`, o.startedAt);
      }
      continue;
    }
    if (o.error && !refused(o)) v.add(`${o.label}: sent after SIGTERM, not refused cleanly (${o.error})`, o.startedAt);
    else if (o.status !== undefined && o.status !== 200 && !isDocumented503(o)) v.add(`${o.label}: sent after SIGTERM, answered ${o.status} ${o.code ?? ""}`, o.startedAt);
  }
  if (inFlight.length === 0) v.add("no request was in flight at the signal (nothing drained)");
  if (gatewayCut) v.add("the gateway cut connections at the drain's deadline");
  if (exitCode !== 0) v.add(`the gateway exited with ${exitCode} (expected 0 after a drain)`);
  return {
    scenario: "gateway SIGTERM under load",
    sent: outcomes.length,
    statuses: statusCounts(outcomes),
    violations: v.list(),
    figures: {
      "in flight at SIGTERM": inFlight.length,
      "batches in flight at SIGTERM": inFlight.filter((o) => o.label === "nwp batch").length,
      "in flight answered 200": inFlight.filter((o) => o.status === 200).length,
      "in flight answered 503 (documented)": inFlight.filter((o) => isDocumented503(o)).length,
      "in flight cut": cut,
      "sent after SIGTERM": after.length,
      "after: served 200 (before the drain began)": after.filter((o) => o.status === 200).length,
      "after: 503 documented": after.filter((o) => isDocumented503(o)).length,
      "after: ECONNREFUSED": after.filter((o) => o.error !== undefined && REFUSED.has(o.error)).length,
      "after: reset unread as the listener closed": after.filter((o) => o.error === RESET && refused(o)).length,
      "after: other failures": after.filter((o) => (o.error !== undefined && !refused(o)) || (o.status !== undefined && o.status !== 200 && !isDocumented503(o))).length,
      "longest in-flight request (ms)": ms(Math.max(0, ...inFlight.map((o) => o.endedAt - o.startedAt))),
      "SIGTERM -> exit (ms)": ms(exitAt - signalAt),
      "gateway exit code": exitCode ?? "signal",
    },
  };
}
