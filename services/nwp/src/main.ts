import { runStandalone } from "@permits/common/main";
import { build } from "./build.js";

runStandalone("nwp", 7002, build);
