// `npm run start:sites`: the service on its own port. Standalone it opens its database (and runs
// the migrations) at start, so a database it cannot open stops the process there.
import { runStandalone } from "@permits/rpc";
import { manifest } from "./manifest.js";

runStandalone({ ...manifest, load: () => import("./build.js").then((m) => (ctx) => m.build(ctx, { eager: true })) });
