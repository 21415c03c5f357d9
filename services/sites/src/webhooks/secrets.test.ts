// Signing secrets are sealed at rest (AES-256-GCM) and the embedded key file is its owner's alone.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { KEY_FILE, newSigningSecret, parseKey, seal, stateDirKey, unseal } from "./secrets.js";

it("makes the embedded key once, mode 0600, and reads the same key afterwards", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "webhook-key-"));
  try {
    const key = stateDirKey(dir);
    expect(key).toHaveLength(32);
    expect(statSync(path.join(dir, KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(stateDirKey(dir).equals(key)).toBe(true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it("refuses a configured key that is not 32 bytes of base64, without repeating it", () => {
  expect(() => parseKey("c2hvcnQ=", "WEBHOOK_SECRET_KEY")).toThrow("invalid configuration: WEBHOOK_SECRET_KEY: must be 32 bytes in base64 (openssl rand -base64 32)");
});

it("seals a secret so that it is not readable at rest and opens only with its key, untampered", () => {
  const key = Buffer.alloc(32, 7);
  const secret = newSigningSecret();
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  const sealed = seal(key, secret);
  expect(sealed).not.toContain(secret.slice(6, 20));
  expect(seal(key, secret)).not.toBe(sealed); // a new IV each time
  expect(unseal(key, sealed)).toBe(secret);
  expect(() => unseal(Buffer.alloc(32, 8), sealed)).toThrow();
  const [iv, tag, body] = sealed.split(".");
  const flipped = Buffer.from(body!, "base64");
  flipped[0]! ^= 1;
  expect(() => unseal(key, [iv, tag, flipped.toString("base64")].join("."))).toThrow();
});
