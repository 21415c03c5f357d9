import { runStandalone } from "@permits/rpc";
import { build } from "./build.js";

runStandalone("sites", 7005, (ctx) => build(ctx, { eager: true }));
