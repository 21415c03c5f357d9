import { runStandalone } from "@permits/rpc";
import { build } from "./build.js";

// V8's own heap growth (HEAP_GROWING_PERCENT 0): bounding it at 100 % cost batches 15 to 25 %
// more CPU here, for 30 to 60 MB less RSS (docs/configuration.md).
runStandalone("nwp", 7002, build, { heapGrowingPercent: 0 });
