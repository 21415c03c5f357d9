// The fault scenarios of issue 15: each starts what it needs, injects its fault under a steady
// load, stops everything it started, and returns a row of measured figures (row.ts).
import { gatewaySigterm } from "./gateway-sigterm.js";
import { nwpKillRestart } from "./nwp-restart.js";
import { providerOutage } from "./provider-outage.js";
import { redisKillRestart } from "./redis-restart.js";
import type { Row } from "./row.js";

export { gatewaySigterm, nwpKillRestart, providerOutage, redisKillRestart };
export type { Row };
