// The front door of @permits/entitlement. The gateway imports it at start for the key scheme
// (keys.ts), so what loads Stripe's SDK, Redis or LMDB is loaded on first use: the service
// itself (its manifest's build, @permits/entitlement/manifest) and the key CLI (runCli). Test
// support (a fake Stripe) is @permits/entitlement/testing.
import type { CliIo } from "./cli.js";

export * from "./keys.js";
export * from "./keyless.js";
export * from "./legacy-state-file.js";
export { ENTITLEMENT_DB_FILE, LmdbStore } from "./lmdb-store.js";
export type { CliIo } from "./cli.js";

/** The key CLI (npm run keys): the exit code, output through `io`. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  return (await import("./cli.js")).runCli(argv, io);
}

/**
 * Whether the service would run with the public development LEGACY_KEY_SECRET under `env`;
 * undefined when its configuration does not parse (reported, with its own message, at build).
 */
export async function usesDevelopmentLegacySecret(env: NodeJS.ProcessEnv): Promise<boolean | undefined> {
  const { DEV_LEGACY_KEY_SECRET, loadEntitlementConfig } = await import("./config.js");
  try {
    return loadEntitlementConfig(env).legacySecret === DEV_LEGACY_KEY_SECRET;
  } catch {
    return undefined;
  }
}
