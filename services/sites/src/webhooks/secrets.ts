// Signing secrets. A secret must sign every delivery, so it cannot be hashed like a key that only
// needs checking: it is sealed at rest with AES-256-GCM under a key the operator configures
// (WEBHOOK_SECRET_KEY), or, embedded, one kept in a file under STATE_DIR readable by its owner only.
// Neither a secret nor the key is ever logged.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ConfigError } from "@permits/runtime";

/** Where the embedded deployment keeps its generated key (STATE_DIR/…, mode 0600). */
export const KEY_FILE = "webhook-secret.key";
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The key as configured: 32 bytes in base64 (`openssl rand -base64 32`). */
export function parseKey(text: string, variable: string): Buffer {
  const key = Buffer.from(text.trim(), "base64");
  if (key.length !== KEY_BYTES) throw new ConfigError(`invalid configuration: ${variable}: must be ${KEY_BYTES} bytes in base64 (openssl rand -base64 32)`);
  return key;
}

/** The embedded deployment's key: read from STATE_DIR, or made there once (never overwritten). */
export function stateDirKey(stateDir: string): Buffer {
  const file = path.join(stateDir, KEY_FILE);
  try {
    writeFileSync(file, `${randomBytes(KEY_BYTES).toString("base64")}\n`, { mode: 0o600, flag: "wx" });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
  }
  return parseKey(readFileSync(file, "utf8"), file);
}

/** A new Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/** `iv.tag.ciphertext`, each base64. */
export function seal(key: Buffer, secret: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const body = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return [iv, cipher.getAuthTag(), body].map((b) => b.toString("base64")).join(".");
}

export function unseal(key: Buffer, sealed: string): string {
  const [iv, tag, body] = sealed.split(".").map((p) => Buffer.from(p, "base64"));
  if (!iv || !tag || !body || iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new Error("a sealed webhook secret is malformed");
  const decipher = createDecipheriv("aes-256-gcm", key, iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(body), decipher.final()]).toString("utf8");
}
