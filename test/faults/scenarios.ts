// The fault scenarios of issue 15: each starts what it needs, injects its fault under a steady
// load, stops everything it started, and returns a row of measured figures (row.ts).
import { gatewaySigterm } from "./gateway-sigterm.js";
import { nwpKillRestart } from "./nwp-restart.js";
import { providerOutage } from "./provider-outage.js";
import { redisKillRestart } from "./redis-restart.js";
import { entitlementFrozenKilled, redisFrozen } from "./frozen.js";
import type { Row, ScenarioOptions } from "./row.js";

export { entitlementFrozenKilled, gatewaySigterm, nwpKillRestart, providerOutage, redisFrozen, redisKillRestart };
export type { Row, ScenarioOptions };

export const SCENARIOS: ReadonlyArray<{ name: string; run: (o: ScenarioOptions) => Promise<Row> }> = [
  { name: "nwp kill -9 and restart", run: nwpKillRestart },
  { name: "gateway SIGTERM under load", run: gatewaySigterm },
  { name: "Redis stopped and restarted", run: redisKillRestart },
  { name: "payment provider unreachable and slow", run: providerOutage },
  { name: "Redis frozen (SIGSTOP) and thawed", run: redisFrozen },
  { name: "entitlement frozen, killed and restarted", run: entitlementFrozenKilled },
];
