import { runStandalone } from "@permits/common/main";
import { build } from "./build.js";

runStandalone("entitlement", 7003, build);
