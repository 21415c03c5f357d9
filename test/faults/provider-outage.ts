// The payment provider (a Stripe double behind a relay) unreachable for the first half of the
// load, then reachable but slower than PAYMENT_PROVIDER_TIMEOUT_MS for the second half.
// Expected (docs/using.md, "Keys and tiers"): every legacy (document 2 live key) call is 503
// entitlement_check_unavailable with Retry-After, answered within about the timeout; no active
// subscriber is ever served as `free`; sandbox and keyless callers do not notice.
import { startFakeStripe } from "@permits/entitlement/testing";
import { deriveLegacyKey } from "@permits/entitlement";
import { distributed, JSON_HEADERS, PROJECT, SANDBOX, SITE, until, when } from "./deploy.js";
import { now, startLoad, type Outcome, type Target } from "./load.js";
import { checkAnswer, isDocumented503, ms, share, statusCounts, UNAVAILABLE, Violations, type Row, type ScenarioOptions } from "./row.js";
import { startSwitch } from "./switch.js";
import { track } from "./resources.js";

const API_KEY = "sk_test_faults";
const SECRET = "test-legacy-secret-faults-0123456789";
export const TIMEOUT_MS = 300;
/** Slow: well past the timeout, so only the timeout can end the wait. */
const SLOW_MS = TIMEOUT_MS * 5;
/** A legacy answer may take the timeout, the adapter's 250 ms guard, and scheduling on a busy 2-core machine. */
const ANSWER_BOUND_MS = TIMEOUT_MS + 1000;
const LEGACY_CODE = { doc2: "entitlement_check_unavailable" } as const;

export async function providerOutage({ durationMs, rate }: ScenarioOptions): Promise<Row> {
  const stripe = await startFakeStripe(API_KEY);
  const closeStripe = track(() => stripe.close());
  const relay = await startSwitch(Number(new URL(stripe.url).port));
  const closeRelay = track(() => relay.close());
  try {
    stripe.set("sub_faults_active", "active");
    stripe.set("sub_faults_canceled", "canceled");
    const d = await distributed({ PAYMENT_PROVIDER: "stripe", PAYMENT_PROVIDER_URL: relay.url, PAYMENT_PROVIDER_API_KEY: API_KEY, PAYMENT_PROVIDER_TIMEOUT_MS: String(TIMEOUT_MS), LEGACY_KEY_SECRET: SECRET });
    try {
      const active = deriveLegacyKey(SECRET, "sub_faults_active");
      const canceled = deriveLegacyKey(SECRET, "sub_faults_canceled");
      const tierOf = async (key: string) => {
        const res = await fetch(`${d.baseUrl}/api/v1/activity`, { headers: { "x-api-key": key } });
        await res.arrayBuffer();
        return `${res.status} ${res.headers.get("x-service-tier")}`;
      };
      // The keys and the double work before the fault: a 503 later is the fault's doing.
      const baseline = `${await tierOf(active)} / ${await tierOf(canceled)}`;
      const targets: Target[] = [
        { label: "legacy active", surface: "doc2", method: "GET", url: `${d.baseUrl}/api/v1/activity`, headers: { "x-api-key": active } },
        { label: "legacy active", surface: "doc2", method: "POST", url: `${d.baseUrl}/api/v1/determine/nwp`, headers: { ...JSON_HEADERS, "x-api-key": active }, body: PROJECT },
        { label: "legacy canceled", surface: "doc2", method: "GET", url: `${d.baseUrl}/api/v1/activity`, headers: { "x-api-key": canceled } },
        { label: "sandbox", surface: "doc2", method: "GET", url: `${d.baseUrl}/api/v1/activity`, headers: { "x-api-key": SANDBOX } },
        { label: "anonymous", surface: "doc1", method: "POST", url: `${d.baseUrl}/api/v1/determine`, headers: JSON_HEADERS, body: SITE },
      ];
      await relay.off();
      const t0 = now();
      const load = startLoad({ rate, durationMs, pick: (i) => targets[i % targets.length] });
      await until(t0, durationMs * 0.5);
      const slowAt = now();
      for (const id of ["sub_faults_active", "sub_faults_canceled"]) stripe.set(id, { kind: "slow", status: id.endsWith("active") ? "active" : "canceled", delayMs: SLOW_MS });
      await relay.on();
      const outcomes = await load.done;
      stripe.set("sub_faults_active", "active");
      const recoveredAt = await when(async () => (await tierOf(active)) === "200 pro", 5000);
      return judge(outcomes, { t0, slowAt, baseline, recovered: recoveredAt !== undefined });
    } finally {
      await d.close();
    }
  } finally {
    await closeRelay();
    await closeStripe();
  }
}

function judge(outcomes: Outcome[], t: { t0: number; slowAt: number; baseline: string; recovered: boolean }): Row {
  const v = new Violations(t.t0);
  const legacy = outcomes.filter((o) => o.label.startsWith("legacy"));
  const documented = legacy.filter((o) => isDocumented503(o, LEGACY_CODE));
  const downgrades = outcomes.filter((o) => o.label === "legacy active" && o.tier === "free");
  for (const o of outcomes) {
    const isLegacy = o.label.startsWith("legacy");
    checkAnswer(o, v, isLegacy ? LEGACY_CODE : UNAVAILABLE);
    if (o.error) v.add(`${o.label}: no answer (${o.error})`, o.startedAt);
    else if (!isLegacy && o.status !== 200) v.add(`${o.label}: ${o.status} ${o.code ?? ""} (not a legacy call)`, o.startedAt);
    else if (isLegacy && !isDocumented503(o, LEGACY_CODE)) v.add(`${o.label}: ${o.status} ${o.code ?? ""} tier ${o.tier} instead of 503 entitlement_check_unavailable`, o.startedAt);
    if (isLegacy && o.endedAt - o.startedAt > ANSWER_BOUND_MS) v.add(`${o.label}: answered after more than ${ANSWER_BOUND_MS} ms (timeout ${TIMEOUT_MS} ms)`, o.startedAt);
  }
  for (const o of downgrades) v.add("legacy active: served as free", o.startedAt);
  if (t.baseline !== "200 pro / 200 free") v.add(`before the fault the keys answered ${t.baseline}, not 200 pro / 200 free`);
  if (!t.recovered) v.add("the active subscriber was not served as pro within 5 s of the provider's return");
  const phase = (o: Outcome) => (o.startedAt < t.slowAt ? "unreachable" : "slow");
  const slowest = (p: string) => ms(Math.max(0, ...legacy.filter((o) => phase(o) === p).map((o) => o.endedAt - o.startedAt)));
  return {
    scenario: "payment provider unreachable, then slow",
    sent: outcomes.length,
    statuses: statusCounts(outcomes),
    violations: v.list(),
    figures: {
      "before the fault (active / canceled)": t.baseline,
      "legacy calls": legacy.length,
      "legacy calls while unreachable": legacy.filter((o) => phase(o) === "unreachable").length,
      "legacy calls while slow": legacy.filter((o) => phase(o) === "slow").length,
      "legacy 503 entitlement_check_unavailable": documented.length,
      "legacy 503 share": share(documented.length, legacy.length),
      "downgrades to free": downgrades.length,
      "slowest legacy answer, unreachable (ms)": slowest("unreachable"),
      "slowest legacy answer, slow (ms)": slowest("slow"),
      "provider timeout (ms)": TIMEOUT_MS,
      "sandbox+anonymous non-200": outcomes.filter((o) => !o.label.startsWith("legacy") && o.status !== 200).length,
      "pro again after the provider returned": t.recovered,
    },
  };
}
