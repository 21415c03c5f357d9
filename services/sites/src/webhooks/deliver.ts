// One delivery attempt: sign the body (Standard Webhooks, with every secret that currently signs)
// and post it. The worker imports this file only when a delivery is due, so a service whose
// accounts have no endpoint (or none with anything due) never loads the signing library, the
// HTTP client or the address checks; its idle poll is one query (worker.ts).
import { Webhook } from "standardwebhooks";
import type { WebhookEndpointRow } from "../db/schema.js";
import { unseal } from "./secrets.js";
import { type AttemptResult, postWebhook } from "./send.js";
import type { WebhookSettings } from "./settings.js";

/** The secrets that sign now: the current one, and the one before it during the rotation overlap. */
function signingSecrets(key: Buffer, endpoint: Pick<WebhookEndpointRow, "secret_sealed" | "previous_secret_sealed" | "previous_secret_until">, now: string): string[] {
  const out = [unseal(key, endpoint.secret_sealed)];
  if (endpoint.previous_secret_sealed && endpoint.previous_secret_until && endpoint.previous_secret_until > now) out.push(unseal(key, endpoint.previous_secret_sealed));
  return out;
}

/** The three headers; `webhook-signature` holds one `v1,…` per signing secret, space-separated. */
function signedHeaders(secrets: readonly string[], id: string, at: Date, payload: string): Record<string, string> {
  return { "webhook-id": id, "webhook-timestamp": String(Math.floor(at.getTime() / 1000)), "webhook-signature": secrets.map((s) => new Webhook(s).sign(id, at, payload)).join(" ") };
}

/** Signs `payload` as event `eventId` at `at` for the endpoint and posts it; never throws for the endpoint's failures. */
export function attemptDelivery(settings: WebhookSettings, endpoint: WebhookEndpointRow, eventId: string, at: Date, payload: string): Promise<AttemptResult> {
  const headers = signedHeaders(signingSecrets(settings.key, endpoint, at.toISOString()), eventId, at, payload);
  return postWebhook(endpoint.url, headers, payload, { policy: settings.policy, timeoutMs: settings.timeoutMs });
}
