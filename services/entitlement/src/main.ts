import { runStandalone } from "@permits/rpc";
import { build } from "./build.js";

runStandalone("entitlement", 7003, build);
