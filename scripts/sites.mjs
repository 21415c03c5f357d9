// npm run sites -- <command>: the sites database's operator tools (services/sites/src/cli.ts):
// purge-expired, backup <file>, verify <export.zip>. Built first in a development tree.
import { runCompiled } from "./lib/run-compiled.mjs";

runCompiled("services/sites/dist/cli.js");
