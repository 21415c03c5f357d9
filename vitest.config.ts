import { defineConfig } from "vitest/config";

// Workspaces resolve to their TypeScript sources under the "source" export condition,
// so tests run without a build; the distributed end-to-end test runs the built output.
export default defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"], externalConditions: ["source"] } },
  test: {
    include: ["**/src/**/*.test.ts", "test/**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/dist/**"],
    testTimeout: 20000,
    hookTimeout: 60000,
  },
});
