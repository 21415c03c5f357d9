import { runStandalone } from "@permits/rpc";
import { build } from "./build.js";

runStandalone("ratelimit", 7004, build);
