// What a route asks of access control: one namespaced route option, `config.access`, as
// fastify-rate-limit reads `config.rateLimit`. A route without it is public and unmetered: the
// plugin attaches nothing to it. The plugin merges the option with its defaults once, at start.
import type { Tier } from "@permits/proto/entitlement/v1/entitlement";
import type { Surface } from "../http/problems.js";

export interface AccessOptions {
  /** Only these tiers may call the route (the NWP batch: Pro only). Absent: every tier. */
  tiers?: Tier[];
  /** The handler meters itself (`reply.meter()`): a keyed idempotent replay must not be charged. */
  deferMetering?: boolean;
  /** Keyless route metered per calling address under this policy (key recovery). */
  ipPolicy?: string;
  /** Identify the caller but spend nothing (the usage read-out). */
  noSpend?: boolean;
  /** A legacy (NWP surface) key is served as the NWP surface: its tier, its vocabulary. */
  legacyKeys?: boolean;
}

declare module "fastify" {
  interface FastifyContextConfig {
    /** Identify the caller and meter the route; absent for public, unmetered routes. */
    access?: AccessOptions;
  }
}

/** A route's options merged with the plugin's defaults, with the surface the route answers in. */
export interface RouteAccess extends Required<Omit<AccessOptions, "tiers" | "ipPolicy">> {
  surface: Surface;
  tiers: Tier[] | undefined;
  ipPolicy: string | undefined;
}

const DEFAULTS: Omit<RouteAccess, "surface"> = { tiers: undefined, deferMetering: false, ipPolicy: undefined, noSpend: false, legacyKeys: false };

/** Read once per route when it is added; a metered route without a surface is a wiring fault. */
export function routeAccess(url: string, surface: Surface | undefined, options: AccessOptions): RouteAccess {
  if (!surface) throw new Error(`Route ${url} asks for access control but names no surface (config.surface).`);
  return { ...DEFAULTS, ...options, surface };
}
