// Starts webhooks with the sites database: the key that seals secrets, the settings, the worker.
import { readFileSync } from "node:fs";
import path from "node:path";
import type { SitesContext } from "../context.js";
import type { RunningWebhooks, WebhookEnv } from "./env.js";
import { parseKey, stateDirKey } from "./secrets.js";
import { WEBHOOK_DEFAULTS, type WebhookSettings } from "./settings.js";
import { DeliveryWorker } from "./worker.js";

/**
 * The configured key, or undefined when there is none to use: with PostgreSQL every replica must
 * share one key, so none is made up; embedded, one is made once under STATE_DIR (mode 0600).
 */
function keyOf(env: WebhookEnv): Buffer | undefined {
  if (env.WEBHOOK_SECRET_KEY) return parseKey(env.WEBHOOK_SECRET_KEY, "WEBHOOK_SECRET_KEY");
  if (env.WEBHOOK_SECRET_KEY_FILE) return parseKey(readFileSync(env.WEBHOOK_SECRET_KEY_FILE, "utf8"), "WEBHOOK_SECRET_KEY_FILE");
  if (!env.DATABASE_URL) return stateDirKey(path.resolve(env.STATE_DIR));
  return undefined;
}

export function startWebhooks(ctx: SitesContext, env: WebhookEnv): RunningWebhooks | undefined {
  const key = keyOf(env);
  if (!key) {
    ctx.logger?.warn("sites: WEBHOOK_SECRET_KEY is unset, so webhook endpoints cannot be registered and nothing is delivered");
    return undefined;
  }
  const settings: WebhookSettings = {
    ...WEBHOOK_DEFAULTS,
    key,
    policy: { allowPrivate: env.WEBHOOK_ALLOW_PRIVATE === "1" },
    retryBaseMs: env.WEBHOOK_RETRY_BASE_MS,
    retryMaxMs: env.WEBHOOK_RETRY_MAX_MS,
    pollMs: env.WEBHOOK_POLL_MS,
  };
  const worker = new DeliveryWorker(ctx, settings);
  settings.wake = () => worker.wake();
  worker.start();
  return { settings, worker };
}
