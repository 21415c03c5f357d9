// Key formats of both documents, and the constant-time comparisons that check them.
// Nothing here does I/O, so every rule is testable on its own.
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export const LIVE_PREFIX = "svc_live_";
export const TEST_PREFIX = "svc_test_";
export const LEGACY_PREFIX = "nwp";
/** The documented public sandbox key (document 1, Authentication 3; document 2, Authentication 2). */
export const DEFAULT_SANDBOX_KEY = "svc_sandbox_public";

/** Random part of an issued key: 40 base62 characters is ~238 bits, above the 32-character floor. */
const SECRET_LENGTH = 40;
const MIN_SECRET_LENGTH = 32;
/** Keys longer than this are refused before hashing; no valid key comes near it. */
export const MAX_KEY_LENGTH = 512;

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const BASE62_RE = /^[0-9A-Za-z]+$/;
const HEX64_RE = /^[0-9a-f]{64}$/;
/** Provider subscription ids (Stripe's look like `sub_1Abc…`); no other characters ever reach a URL path. */
export const SUBSCRIPTION_ID_RE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,199}$/;

/** Uniform base62 string; rejection sampling avoids the modulo bias of `byte % 62`. */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248) out += BASE62[b % 62]; // 248 = 4 * 62: every character equally likely
      if (out.length === length) break;
    }
  }
  return out;
}

export function sha256Hex(value: string): string {
  return createHash("sha256").update(value, "utf8").digest("hex");
}

/** Constant-time equality of two lowercase hex digests of the same algorithm. */
export function safeEqualHex(a: string, b: string): boolean {
  const x = Buffer.from(a, "hex");
  const y = Buffer.from(b, "hex");
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

export type IssuedKind = "live" | "test";

export function generateKeySecret(kind: IssuedKind): string {
  return (kind === "live" ? LIVE_PREFIX : TEST_PREFIX) + randomBase62(SECRET_LENGTH);
}

export function generateKeyId(): string {
  return `key_${randomBase62(16)}`;
}

/** What a presented key looks like from its text alone, before any lookup. */
export type KeyShape =
  | { shape: "live" | "test" }
  | { shape: "legacy"; subscriptionId: string; signature: string }
  | { shape: "malformed" };

/** Classifies a presented key by its structure (the sandbox key is compared separately, first). */
export function classifyKey(key: string): KeyShape {
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) return { shape: "malformed" };
  for (const [prefix, shape] of [[LIVE_PREFIX, "live"], [TEST_PREFIX, "test"]] as const) {
    if (key.startsWith(prefix)) {
      const rest = key.slice(prefix.length);
      return rest.length >= MIN_SECRET_LENGTH && BASE62_RE.test(rest) ? { shape } : { shape: "malformed" };
    }
  }
  const legacy = parseLegacyKey(key);
  return legacy ? { shape: "legacy", ...legacy } : { shape: "malformed" };
}

/**
 * Splits `<prefix>_<subscriptionId>_<signature>`: the prefix ends at the first underscore and the
 * signature starts after the last, because neither alphabet has one; the subscription id between
 * may hold underscores of its own (`sub_1Abc`).
 */
export function parseLegacyKey(key: string): { subscriptionId: string; signature: string } | undefined {
  const first = key.indexOf("_");
  const last = key.lastIndexOf("_");
  if (first < 0 || last <= first) return undefined;
  const prefix = key.slice(0, first);
  const subscriptionId = key.slice(first + 1, last);
  const signature = key.slice(last + 1);
  if (prefix !== LEGACY_PREFIX || !SUBSCRIPTION_ID_RE.test(subscriptionId) || !HEX64_RE.test(signature)) {
    return undefined;
  }
  return { subscriptionId, signature };
}

function legacySignature(secret: string, subscriptionId: string): string {
  return createHmac("sha256", secret).update(subscriptionId, "utf8").digest("hex");
}

/** The NWP (legacy) live key for a subscription: deterministic, so it can be reissued at /recover. */
export function deriveLegacyKey(secret: string, subscriptionId: string): string {
  if (!SUBSCRIPTION_ID_RE.test(subscriptionId)) throw new Error("subscription id has characters a key cannot carry");
  return `${LEGACY_PREFIX}_${subscriptionId}_${legacySignature(secret, subscriptionId)}`;
}

/** Checks the signature alone, in constant time; the provider is consulted only when this passes. */
export function verifyLegacySignature(secret: string, subscriptionId: string, signature: string): boolean {
  return safeEqualHex(legacySignature(secret, subscriptionId), signature);
}

/** A short, non-reversible tag for logs, where a subscription id (a recovery credential) must not appear. */
export function fingerprint(value: string): string {
  return sha256Hex(`fp:${value}`).slice(0, 12);
}
