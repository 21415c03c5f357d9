import { runStandalone } from "@permits/common/main";
import { build } from "./build.js";

runStandalone("ratelimit", 7004, build);
