// How webhooks behave: what build.ts reads from the environment (docs/configuration.md), and
// what tests set directly.
import type { TargetPolicy } from "./targets.js";

export interface WebhookSettings {
  /** The key sealing signing secrets (secrets.ts). */
  key: Buffer;
  policy: TargetPolicy;
  /** One attempt's limit: connecting, sending and the answer. */
  timeoutMs: number;
  /** The wait after the first failed attempt; it doubles after each (with jitter), up to retryMaxMs. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** How long after an event its delivery is retried before the endpoint is marked failing. */
  retryForMs: number;
  /** How often the worker looks for due deliveries. */
  pollMs: number;
  /** Asks the worker to look now (a test event should not wait for the next poll). */
  wake?: () => void;
}

const HOUR = 3_600_000;

/** Production's values; a process reads them from its environment (build.ts). */
export const WEBHOOK_DEFAULTS = { timeoutMs: 10_000, retryBaseMs: 10_000, retryMaxMs: 4 * HOUR, retryForMs: 72 * HOUR, pollMs: 1000 } as const;

/** How long the secret before a rotation goes on signing beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * HOUR;

/** The most endpoints one account may register. */
export const MAX_ENDPOINTS = 10;
