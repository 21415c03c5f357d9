// npm run keys -- <command>: the key CLI (services/entitlement/src/cli.ts), built first in a
// development tree (scripts/lib/run-compiled.mjs).
import { runCompiled } from "./lib/run-compiled.mjs";

runCompiled("services/entitlement/dist/cli.js");
