// `npm run start:nwp`: the service on its own port (docs/deployment.md).
import { runStandalone } from "@permits/rpc";
import { manifest } from "./manifest.js";

runStandalone(manifest);
