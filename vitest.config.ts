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
    testTimeout: 20000,
    hookTimeout: 60000,
    // Probes chromium, kubectl, redis-server and a Redis once; tests whose tool is missing are skipped.
    globalSetup: ["test/support/prerequisites.ts"],
  },
});
