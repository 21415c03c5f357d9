// Development defaults that must not reach a reachable address. The distributed services refuse
// to listen off loopback without INTERNAL_TOKENS; the embedded gateway (the entitlement service
// in this process) refuses to listen off loopback with the public development LEGACY_KEY_SECRET,
// with which anyone could sign document 2 keys for any subscription id.
import { ConfigError } from "@permits/runtime";
import { isLoopback } from "@permits/rpc";
import type { GatewayConfig } from "./config.js";

export async function refuseUnsafeDefaults(config: GatewayConfig, env: NodeJS.ProcessEnv): Promise<void> {
  // A remote entitlement service holds the secret, and checks its own configuration.
  if (isLoopback(config.HOST) || config.ENTITLEMENT_URL) return;
  // The entitlement configuration is loaded only here: a gateway whose services are all remote never loads it.
  const { usesDevelopmentLegacySecret } = await import("@permits/entitlement");
  if ((await usesDevelopmentLegacySecret(env)) === true) {
    throw new ConfigError(
      `invalid configuration: LEGACY_KEY_SECRET: required when listening on ${config.HOST} (not a loopback address): the development secret is public, so anyone could sign NWP Pro keys; set LEGACY_KEY_SECRET (16 characters or more), or listen on 127.0.0.1`,
    );
  }
}
