import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

// Workspaces resolve to their TypeScript sources under the "@permits/source" export condition, so
// tests run without a build (the distributed end-to-end tests run the built output). The name is
// our own because some dependencies (eventsource-parser) publish TypeScript under a plain "source".
const EXCLUDE = ["**/node_modules/**", "**/dist/**"];
const TIMED = [
  "test/faults.test.ts",
  "test/bench-smoke.test.ts",
  "services/stormwater/src/engine/property.test.ts",
  "services/nwp/src/engine/engine.test.ts",
  "services/ratelimit/src/resilient-store.test.ts",
  "test/slow-clients.test.ts",
];

export default defineConfig({
  resolve: { conditions: ["@permits/source"] },
  ssr: { resolve: { conditions: ["@permits/source"], externalConditions: ["@permits/source"] } },
  test: {
    // Vitest's default is one fork per core less one: a single fork on these 2-core machines. Most
    // files wait on child processes and sockets, not on CPU, so two forks share the cores well:
    // the suite took 297-331 s in three runs with two, against 429 s with one (2026-11-26).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 20000,
    hookTimeout: 60000,
    // Probes chromium, kubectl, redis-server and a Redis once; tests whose tool is missing are skipped.
    globalSetup: ["test/support/prerequisites.ts"],
    // Files that judge time (throughput, a restart's recovery bound, the bench's settling) run as a
    // second group, after everything else: in the same two forks as the sites and app suites they
    // measured the machine's contention, not the code (nwp's restart took 2.4-4.1 s to listen,
    // against 0.7-1.0 s alone, 2026-11-28).
    projects: [
      { extends: true, test: { name: "suite", include: ["**/src/**/*.test.ts", "test/**/*.test.ts"], exclude: [...EXCLUDE, ...TIMED], sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: "timed", include: TIMED, exclude: EXCLUDE, sequence: { groupOrder: 1 } } },
    ],
  },
});
