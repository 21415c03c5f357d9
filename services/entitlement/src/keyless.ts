// Callers that need no key check: no key at all, and the public sandbox key. Both are decided
// from the request alone (the sandbox key is configuration, not a stored key), so the gateway
// answers them without calling the entitlement service: anonymous and sandbox callers keep
// getting answers while the service or its key store is down. The service decides them the
// same way, through this one function.
import { create } from "@bufbuild/protobuf";
import { Surface } from "@permits/proto/common/v1/common";
import { KeyKind, PrincipalSchema, Tier, type Principal } from "@permits/proto/entitlement/v1/entitlement";
import { invalidArgument, ViolationReason } from "@permits/rules";
import { createHash, timingSafeEqual } from "node:crypto";

/** Document 2 needs a key: a call without one is refused, on either side. */
export const MISSING = "missing" as const;

export class KeylessCallers {
  /** The sandbox key's digest, computed once: each call hashes only the presented key. */
  private readonly sandboxDigest: Buffer;

  constructor(sandboxKey: string) {
    this.sandboxDigest = createHash("sha256").update(sandboxKey).digest();
  }

  /**
   * The principal of a keyless or sandbox caller; MISSING for no key on document 2; undefined
   * when the key must be looked up (live, test and legacy keys, and anything malformed).
   */
  identify(surface: Surface.STORMWATER | Surface.NWP, apiKey: string | undefined, clientIp: string): Principal | typeof MISSING | undefined {
    if (apiKey === undefined) {
      if (surface === Surface.NWP) return MISSING;
      return create(PrincipalSchema, { surface, tier: Tier.ANONYMOUS, bucket: ipBucket(clientIp), keyKind: KeyKind.UNSPECIFIED });
    }
    // One constant-time comparison of digests: the time is independent of both keys' contents
    // and lengths. Same answer on both surfaces.
    if (timingSafeEqual(createHash("sha256").update(apiKey).digest(), this.sandboxDigest)) {
      return create(PrincipalSchema, { surface, tier: Tier.SANDBOX, bucket: ipBucket(clientIp), keyKind: KeyKind.SANDBOX });
    }
    return undefined;
  }
}

function ipBucket(clientIp: string): string {
  // Without the IP every anonymous and sandbox caller would share one bucket.
  if (!clientIp) {
    throw invalidArgument("client_ip is required for per-IP buckets", [
      { field: "client_ip", description: "the calling IP is required", reason: ViolationReason.MISSING },
    ]);
  }
  return `ip:${clientIp}`;
}
