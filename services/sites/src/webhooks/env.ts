// The webhook variables the sites service reads (docs/configuration.md). Cheap to import: build.ts
// reads them at start, before anything of the database loads.
import { positiveInt, str } from "@permits/runtime";
import type { DeliveryWorker } from "./worker.js";
import type { WebhookSettings } from "./settings.js";

export const WEBHOOK_ENV = {
  WEBHOOK_SECRET_KEY: str({ default: "", desc: "The key sealing webhook signing secrets at rest: 32 bytes in base64 (openssl rand -base64 32). Unset: WEBHOOK_SECRET_KEY_FILE, else (embedded) a key made once in STATE_DIR." }),
  WEBHOOK_SECRET_KEY_FILE: str({ default: "", desc: "A file holding WEBHOOK_SECRET_KEY (a mounted secret)." }),
  WEBHOOK_ALLOW_PRIVATE: str({ default: "0", choices: ["0", "1"], desc: "1: webhooks may go to loopback, private and link-local addresses, and over http to a loopback host (tests)." }),
  WEBHOOK_RETRY_BASE_MS: positiveInt({ default: 10_000, desc: "The wait after a webhook's first failed attempt; it doubles after each (with jitter)." }),
  WEBHOOK_RETRY_MAX_MS: positiveInt({ default: 4 * 3_600_000, desc: "The longest wait between two attempts of one webhook." }),
  WEBHOOK_POLL_MS: positiveInt({ default: 1000, desc: "How often the delivery worker looks for due webhooks." }),
} as const;

export interface WebhookEnv {
  DATABASE_URL?: string;
  STATE_DIR: string;
  WEBHOOK_SECRET_KEY: string;
  WEBHOOK_SECRET_KEY_FILE: string;
  WEBHOOK_ALLOW_PRIVATE: string;
  WEBHOOK_RETRY_BASE_MS: number;
  WEBHOOK_RETRY_MAX_MS: number;
  WEBHOOK_POLL_MS: number;
}

export interface RunningWebhooks {
  settings: WebhookSettings;
  worker: DeliveryWorker;
}
