// An issued stormwater-surface key as stored: its digest, never its plaintext. In its own file so
// that the key store and the checkout store it holds both name it without importing each other.
export type KeyKindName = "live" | "test";
export type PlanName = "pro" | "scale";
export interface StoredKey {
  id: string;
  kind: KeyKindName;
  /** Live keys only; test keys have no plan. */
  plan: PlanName | null;
  label: string;
  /** SHA-256 hex of the full key; the plaintext is never stored. */
  hash: string;
  createdAt: string;
  revokedAt: string | null;
}
