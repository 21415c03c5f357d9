// kill -9 of the nwp service under load, then a restart on the same port, gateway untouched.
// Expected: document 2 callers get the documented 503 (Retry-After, internal_error) while it is
// down and 200 again within 2 s of the restart; document 1 (stormwater) never notices.
import { distributed, JSON_HEADERS, killHard, PROJECT, SANDBOX, SITE, until, when } from "./deploy.js";
import { now, startLoad, type Outcome, type Target } from "./load.js";
import { checkAnswer, isDocumented503, ms, statusCounts, Violations, type Row, type ScenarioOptions } from "./row.js";
import { isRunning } from "./resources.js";

/** The bound from the restart to the first 200. */
export const RECOVERY_BOUND_MS = 2000;

export async function nwpKillRestart({ durationMs, rate }: ScenarioOptions): Promise<Row> {
  const d = await distributed();
  try {
    const gateway = d.proc("gateway");
    const sandbox = { ...JSON_HEADERS, "x-api-key": SANDBOX };
    const targets: Target[] = [
      { label: "nwp determine", surface: "doc2", method: "POST", url: `${d.baseUrl}/api/v1/determine/nwp`, headers: sandbox, body: PROJECT },
      { label: "nwp activity", surface: "doc2", method: "GET", url: `${d.baseUrl}/api/v1/activity`, headers: { "x-api-key": SANDBOX } },
      { label: "stormwater determine", surface: "doc1", method: "POST", url: `${d.baseUrl}/api/v1/determine`, headers: JSON_HEADERS, body: SITE },
    ];
    const t0 = now();
    const load = startLoad({ rate, durationMs, pick: (i) => targets[i % targets.length] });
    // Down from 25 % to 40 % of the run: the rest shows the recovery under the same load.
    await until(t0, durationMs * 0.25);
    const killAt = now();
    await killHard(d.proc("nwp"));
    await until(t0, durationMs * 0.4);
    const restartAt = now();
    d.restart("nwp");
    // When the new process answers its own health check (what a restart can do at best).
    const listeningAt = await when(async () => {
      const res = await fetch(`${d.serviceUrls.NWP_URL}/grpc.health.v1.Health/Check`, { method: "POST", headers: JSON_HEADERS, body: "{}" });
      return res.ok && (await res.json()).status === "SERVING";
    }, 10_000, 10);
    const outcomes = await load.done;
    return judge(outcomes, { t0, killAt, restartAt, listeningAt, gatewayUp: isRunning(gateway.child) });
  } finally {
    await d.close();
  }
}

interface Timeline {
  t0: number;
  killAt: number;
  restartAt: number;
  listeningAt?: number;
  gatewayUp: boolean;
}

function judge(outcomes: Outcome[], t: Timeline): Row {
  const v = new Violations(t.t0);
  const nwp = outcomes.filter((o) => o.surface === "doc2");
  // Recovery: the first 200 from nwp for a request sent after the kill.
  const okAfterKill = nwp.filter((o) => o.status === 200 && o.startedAt > t.killAt).map((o) => o.endedAt);
  const recoveredAt = okAfterKill.length ? Math.min(...okAfterKill) : undefined;
  let outage503 = 0;
  let outageDocumented = 0;
  for (const o of outcomes) {
    checkAnswer(o, v);
    if (o.error) v.add(`${o.label}: no answer (${o.error})`, o.startedAt);
    if (o.status === undefined || o.status === 200) continue;
    if (o.surface === "doc1") {
      v.add(`stormwater determine: ${o.status} while only nwp was down`, o.startedAt);
      continue;
    }
    // A 503 belongs to the outage if it came after the kill, for a request sent before recovery.
    const inOutage = o.endedAt >= t.killAt && (recoveredAt === undefined || o.startedAt <= recoveredAt);
    if (o.status === 503 && inOutage) {
      outage503++;
      if (isDocumented503(o)) outageDocumented++;
    } else if (o.status === 503) {
      v.add(`${o.label}: 503 outside the outage`, o.startedAt);
    } else if (o.status < 500) {
      v.add(`${o.label}: unexpected ${o.status} ${o.code ?? ""}`, o.startedAt);
    }
  }
  const restartToOk = recoveredAt === undefined ? undefined : recoveredAt - t.restartAt;
  if (restartToOk === undefined) v.add("no 200 from nwp after the restart before the load ended");
  else if (restartToOk > RECOVERY_BOUND_MS) v.add(`first 200 came ${ms(restartToOk)} ms after the restart (bound ${RECOVERY_BOUND_MS} ms)`);
  if (outage503 === 0) v.add("no 503 seen while nwp was down (the fault did not show)");
  if (!t.gatewayUp) v.add("the gateway process exited or was restarted");
  return {
    scenario: "nwp kill -9 + restart",
    sent: outcomes.length,
    statuses: statusCounts(outcomes),
    violations: v.list(),
    figures: {
      "nwp down (ms)": ms(t.restartAt - t.killAt),
      "outage 503s": outage503,
      "outage 503s documented (Retry-After, internal_error)": outageDocumented,
      "stormwater non-200": outcomes.filter((o) => o.surface === "doc1" && o.status !== 200).length,
      "restart -> nwp listening (ms)": t.listeningAt === undefined ? "never" : ms(t.listeningAt - t.restartAt),
      "restart -> first 200 (ms)": restartToOk === undefined ? "never" : ms(restartToOk),
      // The gateway's own share: from the service answering again to a caller getting a 200.
      "nwp listening -> first 200 (ms)": recoveredAt === undefined || t.listeningAt === undefined ? "n/a" : ms(recoveredAt - t.listeningAt),
      "gateway restarts": t.gatewayUp ? 0 : 1,
    },
  };
}
