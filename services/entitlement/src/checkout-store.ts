// What checkout keeps in the key store: one fulfilment per checkout session, claimed atomically
// together with the keys it issues, so a replayed or concurrent webhook and the success page
// issue once between them. The keys' plaintexts wait, sealed, until the success page shows them
// once; then only their digests remain (the StoredKey records).
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import type { StoredKey } from "./stored-key.js";

export interface Fulfilment {
  sessionId: string;
  /** A checkout plan id: stormwater_pro, stormwater_scale or nwp_pro. */
  planId: string;
  subscriptionId: string;
  customerId: string | null;
  /** The document 1 keys issued (none for document 2, whose key is derived). */
  keyIds: string[];
  issuedAt: string;
  /** Who got there first. */
  issuedBy: "webhook" | "page";
}

/** A checkout session of the local provider (PAYMENT_PROVIDER=local). */
export interface LocalSession {
  id: string;
  planId: string;
  createdAt: string;
}

export type TakeSealed = { taken: string } | { shownAt: string } | { missing: true };

export interface CheckoutStore {
  /**
   * Stores the fulfilment and its keys in one atomic step unless the session already has one.
   * `claimed: false` returns the fulfilment that was there, and nothing is written.
   */
  claimFulfilment(f: Fulfilment, keys: StoredKey[], sealed: string): Promise<{ claimed: boolean; fulfilment: Fulfilment }>;
  getFulfilment(sessionId: string): Promise<Fulfilment | undefined>;
  /** Atomically hands out the sealed plaintexts once and records when; later calls get `shownAt`. */
  takeSealed(sessionId: string, at: string): Promise<TakeSealed>;
  /** The fulfilment that issued a document 1 key. */
  fulfilmentOfKey(keyId: string): Promise<Fulfilment | undefined>;
  /** Every fulfilment of a subscription (normally one). */
  fulfilmentsOf(subscriptionId: string): Promise<Fulfilment[]>;
  putLocalSession(s: LocalSession): Promise<void>;
  getLocalSession(id: string): Promise<LocalSession | undefined>;
  /** The local session's subscription: set once (the first confirmation wins), then the same id. */
  claimLocalSubscription(sessionId: string, subscriptionId: string): Promise<string>;
  localSubscriptionOf(sessionId: string): Promise<string | undefined>;
}

export function parseFulfilment(value: unknown): Fulfilment {
  const v = value as Partial<Fulfilment> | null;
  const ok =
    v !== null &&
    typeof v === "object" &&
    typeof v.sessionId === "string" &&
    typeof v.planId === "string" &&
    typeof v.subscriptionId === "string" &&
    (v.customerId === null || typeof v.customerId === "string") &&
    Array.isArray(v.keyIds) &&
    v.keyIds.every((k) => typeof k === "string") &&
    typeof v.issuedAt === "string" &&
    (v.issuedBy === "webhook" || v.issuedBy === "page");
  if (!ok) throw new Error("entitlement store holds a malformed checkout fulfilment");
  return { sessionId: v.sessionId!, planId: v.planId!, subscriptionId: v.subscriptionId!, customerId: v.customerId!, keyIds: [...v.keyIds!], issuedAt: v.issuedAt!, issuedBy: v.issuedBy! };
}

export function parseLocalSession(value: unknown): LocalSession {
  const v = value as Partial<LocalSession> | null;
  if (v === null || typeof v !== "object" || typeof v.id !== "string" || typeof v.planId !== "string" || typeof v.createdAt !== "string") {
    throw new Error("entitlement store holds a malformed local checkout session");
  }
  return { id: v.id, planId: v.planId, createdAt: v.createdAt };
}

// Sealing: AES-256-GCM under a key derived from the session id and the server's secret. The
// store alone (which holds session ids) cannot open a seal, and each seal is dropped once shown.
const INFO = "permits checkout keys v1";

function sealKey(secret: string, sessionId: string): Buffer {
  return Buffer.from(hkdfSync("sha256", sessionId, secret, INFO, 32));
}

export function seal(secret: string, sessionId: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", sealKey(secret, sessionId), iv);
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return [iv, cipher.getAuthTag(), body].map((b) => b.toString("base64url")).join(".");
}

export function unseal(secret: string, sessionId: string, sealed: string): string {
  const [iv, tag, body] = sealed.split(".").map((p) => Buffer.from(p, "base64url"));
  const decipher = createDecipheriv("aes-256-gcm", sealKey(secret, sessionId), iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(body), decipher.final()]).toString("utf8");
}
