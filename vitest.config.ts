import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

// Workspaces resolve to their TypeScript sources under the "@permits/source" export condition, so
// tests run without a build (the distributed end-to-end tests run the built output). The name is
// our own because some dependencies (eventsource-parser) publish TypeScript under a plain "source".
export default defineConfig({
  resolve: { conditions: ["@permits/source"] },
  ssr: { resolve: { conditions: ["@permits/source"], externalConditions: ["@permits/source"] } },
  test: {
    include: ["**/src/**/*.test.ts", "test/**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/dist/**"],
    // Vitest's default is one fork per core less one: a single fork on these 2-core machines. Most
    // files wait on child processes and sockets, not on CPU, so two forks share the cores well:
    // the suite took 297-331 s in three runs with two, against 429 s with one (2026-11-26).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 20000,
    hookTimeout: 60000,
    // Probes chromium, kubectl, redis-server and a Redis once; tests whose tool is missing are skipped.
    globalSetup: ["test/support/prerequisites.ts"],
  },
});
