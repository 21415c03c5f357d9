// The standalone entry point shared by the four services: read HOST and PORT, build the
// service, serve it, and close gracefully on SIGTERM.
import type { DescService } from "@bufbuild/protobuf";
import { systemClock } from "./clock.js";
import { host, port, readEnv, startOrExit } from "./config.js";
import type { BuildContext, BuiltService } from "./hosted.js";
import { DEFAULT_HEAP_GROWING_PERCENT, heapGrowingPercent, limitHeapGrowth } from "./heap.js";
import { createLogger } from "./logger.js";
import { closeOnSignals, serve } from "./serve.js";

export function runStandalone(name: string, defaultPort: number, build: (ctx: BuildContext) => Promise<BuiltService<DescService>>): void {
  void startOrExit(async () => {
    const env = readEnv({
      HOST: host({ default: "127.0.0.1" }),
      PORT: port({ default: defaultPort }),
      HEAP_GROWING_PERCENT: heapGrowingPercent({ default: DEFAULT_HEAP_GROWING_PERCENT }),
    });
    limitHeapGrowth(env.HEAP_GROWING_PERCENT);
    const logger = createLogger(name);
    const built = await build({ env: process.env, logger, clock: systemClock });
    const running = await serve({ name, services: [{ service: built.service, impl: built.impl }], host: env.HOST, port: env.PORT, logger });
    closeOnSignals({ close: async () => { await running.close(); await built.close(); } }, logger);
  });
}
