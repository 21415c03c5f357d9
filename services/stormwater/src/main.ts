import { runStandalone } from "@permits/common/main";
import { build } from "./build.js";

runStandalone("stormwater", 7001, build);
