import { runStandalone } from "@permits/rpc";
import { build } from "./build.js";

runStandalone("stormwater", 7001, build);
