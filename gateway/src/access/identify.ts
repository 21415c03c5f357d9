// Which caller this is. `identify` is the one place that decides: the key headers, the legacy key
// scheme, the calling address and the entitlement service's answer become the request's principal
// on the surface that answers it.
import type { FastifyRequest } from "fastify";
import { Code, ConnectError } from "@connectrpc/connect";
import { create } from "@bufbuild/protobuf";
import { Surface as SurfaceEnum } from "@permits/proto/common/v1/common";
import { PrincipalSchema, Tier, type Principal } from "@permits/proto/entitlement/v1/entitlement";
import { classifyKey, KeylessCallers, MISSING, parseLegacyKey } from "@permits/entitlement";
import type { ServiceClients } from "../services.js";
import { Problem, toProblem, type Surface } from "../http/problems.js";
import type { RouteAccess } from "./options.js";

const SURFACES: Record<Surface, SurfaceEnum> = { stormwater: SurfaceEnum.STORMWATER, nwp: SurfaceEnum.NWP };

/** Where no key was accepted, the caller is its address on the surface's keyless tier. */
const KEYLESS_TIER: Record<Surface, Tier> = { stormwater: Tier.ANONYMOUS, nwp: Tier.SANDBOX };

const ACCEPTED_FORMS = "send Authorization: Bearer <key> or X-API-Key: <key>";

/**
 * `Authorization: Bearer <key>` or `x-api-key` (header names are case-insensitive in Node).
 * A header that is present but not one of these forms (another scheme, `Bearer` with nothing
 * after it, an empty X-API-Key) is refused: a caller who mistyped it must not silently become
 * anonymous.
 */
function apiKeyOf(req: FastifyRequest): string | undefined {
  const auth = req.headers.authorization;
  if (auth !== undefined) {
    // ASCII whitespace only: a key with a trailing no-break space (0xA0) is not the key.
    const m = typeof auth === "string" ? /^Bearer[ \t]+([^ \t]+)[ \t]*$/i.exec(auth) : null;
    if (!m) throw new Problem("invalid_api_key", `The Authorization header is not a key in an accepted form: ${ACCEPTED_FORMS}.`);
    return m[1];
  }
  const key = req.headers["x-api-key"];
  if (key !== undefined) {
    const trimmed = typeof key === "string" ? trimAscii(key) : "";
    if (trimmed === "") throw new Problem("invalid_api_key", `The X-API-Key header is empty: ${ACCEPTED_FORMS}.`);
    return trimmed;
  }
  return undefined;
}

/** Trims spaces and tabs (what HTTP calls whitespace), never other characters such as U+00A0. */
function trimAscii(s: string): string {
  return s.replace(/^[ \t]+|[ \t]+$/g, "");
}

/** A caller known only by its address: metered per address on the surface. */
export function keylessPrincipal(req: FastifyRequest, surface: Surface, tier: Tier = KEYLESS_TIER[surface]): Principal {
  return create(PrincipalSchema, { surface: SURFACES[surface], tier, bucket: `ip:${req.ip}` });
}

/**
 * The caller of this request on this route. Sets `req.surface` to the surface that answers it (a
 * legacy key on a route that takes both schemes is answered as the NWP surface). Throws a Problem
 * in that surface's terms when no caller can be named (a malformed or unknown key, an outage).
 */
export async function identify(entitlement: ServiceClients["entitlement"], keyless: KeylessCallers, req: FastifyRequest, route: RouteAccess): Promise<Principal> {
  req.surface = route.surface;
  if (route.ipPolicy) return keylessPrincipal(req, route.surface, Tier.ANONYMOUS);
  const apiKey = apiKeyOf(req);
  if (route.legacyKeys && apiKey !== undefined && parseLegacyKey(apiKey)) req.surface = "nwp";
  // No key and the sandbox key need no key check: decided here, without the entitlement service.
  const local = keyless.identify(SURFACES[req.surface] as SurfaceEnum.STORMWATER | SurfaceEnum.NWP, apiKey, req.ip);
  if (local === MISSING) throw missingKey();
  if (local) return local;
  let principal: Principal | undefined;
  try {
    principal = (await entitlement.authenticate({ surface: SURFACES[req.surface], apiKey, clientIp: req.ip })).principal;
  } catch (e) {
    throw authProblem(e, req.surface, apiKey);
  }
  if (!principal) throw new Problem("internal", "The caller could not be identified.");
  return principal;
}

function authProblem(e: unknown, surface: Surface, apiKey: string | undefined): Problem {
  if (e instanceof ConnectError && e.code === Code.Unauthenticated) {
    if (apiKey === undefined) return missingKey();
    return new Problem("invalid_api_key", otherKindOfKey(surface, apiKey) ?? "The API key is not valid, or has been revoked.");
  }
  return entitlementOutage(e) ?? toProblem(e);
}

/**
 * A refused key that is the other endpoints' kind, told by its form alone (the svc_live_ and
 * svc_test_ prefixes, the nwp_ key's shape): says which key it is and which key these endpoints
 * take. Whether such a key exists is not told, only what its text already shows.
 */
function otherKindOfKey(surface: Surface, apiKey: string): string | undefined {
  const { shape } = classifyKey(apiKey);
  if (surface === "nwp" && (shape === "live" || shape === "test")) {
    return `This is a stormwater ${shape} key (svc_${shape}_…): it works on the stormwater endpoints only. The nationwide permit (NWP) endpoints take the NWP Pro key from checkout at /pricing (nwp_…), or the public sandbox key.`;
  }
  if (surface === "stormwater" && shape === "legacy") {
    return "This is an NWP Pro key (nwp_…): it works on the nationwide permit (NWP) endpoints only. The stormwater endpoints take a svc_live_ or svc_test_ key from checkout at /pricing, or the public sandbox key.";
  }
  return undefined;
}

function missingKey(): Problem {
  return new Problem("missing_api_key", "This endpoint needs an API key: send Authorization: Bearer <key> or X-API-Key.");
}

/**
 * The entitlement service's Unavailable as the caller's retryable 503, or undefined for other
 * errors. The service words these for callers (the payment provider, or the key store), and they
 * are never a verdict on the key or the subscription.
 */
export function entitlementOutage(e: unknown): Problem | undefined {
  if (!(e instanceof ConnectError) || e.code !== Code.Unavailable) return undefined;
  const retry = e.metadata.get("retry-after");
  // Without Retry-After it is the transport's error (the service did not answer): its text is not for callers.
  const message = retry === null ? "The key check service could not be reached. This is temporary and says nothing about the key; retry in 5 seconds." : e.rawMessage;
  return new Problem("entitlement_check_unavailable", message, { status: 503, headers: { "retry-after": retry ?? "5" } });
}
