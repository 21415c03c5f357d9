// `npm run start:sites`: the service on its own port, its database opened (and migrated) at start,
// so a bad database stops the process there.
import { runStandalone } from "@permits/rpc";
import { build } from "./build.js";
import { manifest } from "./manifest.js";

runStandalone({ ...manifest, load: async () => (ctx) => build(ctx, { eager: true }) });
