// Stripe adapter: the official SDK retrieving one subscription. Only a 404 resource_missing means
// "unknown subscription"; every other failure is "unavailable", so an outage, a misconfigured URL
// or a bad API key can never make a paying customer look cancelled.
import Stripe from "stripe";
import { ProviderUnavailableError, type PaymentProvider, type SubscriptionLookup } from "./provider.js";

export interface StripeProviderOptions {
  /** Base URL, e.g. https://api.stripe.com or http://127.0.0.1:12111 (PAYMENT_PROVIDER_URL). */
  url: string;
  apiKey: string;
  timeoutMs: number;
}

/** Splits PAYMENT_PROVIDER_URL into the SDK's host/port/protocol; throws on anything else. */
export function stripeEndpoint(url: string): { host: string; port: number; protocol: "http" | "https" } {
  const u = new URL(url); // throws TypeError on garbage
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error("must be an http or https URL");
  if (u.pathname !== "/" || u.search || u.hash) throw new Error("must not carry a path, query or fragment");
  if (u.username || u.password) throw new Error("must not carry credentials (use PAYMENT_PROVIDER_API_KEY)");
  const protocol = u.protocol === "https:" ? "https" : "http";
  const port = u.port ? Number(u.port) : protocol === "https" ? 443 : 80;
  // URL keeps IPv6 brackets in hostname; node's http.request wants them off.
  const host = u.hostname.replace(/^\[(.*)\]$/, "$1");
  return { host, port, protocol };
}

interface StripeLikeError {
  type?: unknown;
  statusCode?: unknown;
  code?: unknown;
}

/** A Stripe failure in a word: "missing" for a 404 resource_missing, otherwise a secret-free reason. */
export function classify(err: unknown): "missing" | string {
  const e = (err ?? {}) as StripeLikeError;
  if (e.statusCode === 404 && e.code === "resource_missing") return "missing";
  if (e.type === "StripeConnectionError") return "connection";
  if (typeof e.statusCode === "number") return `status ${e.statusCode}`;
  return "unexpected error";
}

/** The SDK pointed at PAYMENT_PROVIDER_URL; shared by the subscription check and checkout. */
export function stripeClient(options: StripeProviderOptions): Stripe {
  const { host, port, protocol } = stripeEndpoint(options.url);
  return new Stripe(options.apiKey, {
    host,
    port,
    protocol,
    timeout: options.timeoutMs,
    // The caller gets a retryable 503 instead; retrying here would stretch the wait past the timeout.
    maxNetworkRetries: 0,
    telemetry: false,
  });
}

export class StripeProvider implements PaymentProvider {
  readonly name = "stripe" as const;
  private readonly stripe: Stripe;

  constructor(private readonly options: StripeProviderOptions) {
    this.stripe = stripeClient(options);
  }

  async lookupSubscription(subscriptionId: string): Promise<SubscriptionLookup> {
    let timer: NodeJS.Timeout | undefined;
    // The SDK's timeout covers the socket; this guard also covers anything before it (DNS, TLS).
    const guard = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ProviderUnavailableError("timeout")), this.options.timeoutMs + 250);
      timer.unref();
    });
    try {
      const sub = await Promise.race([this.stripe.subscriptions.retrieve(subscriptionId), guard]);
      const status = (sub as { status?: unknown; object?: unknown }).status;
      if (typeof status !== "string" || (sub as { object?: unknown }).object !== "subscription") {
        throw new ProviderUnavailableError("reply is not a subscription");
      }
      return { found: true, status };
    } catch (err) {
      if (err instanceof ProviderUnavailableError) throw err;
      const kind = classify(err);
      if (kind === "missing") return { found: false };
      const timedOut = /timeout/i.test(String((err as Error)?.message ?? ""));
      // The SDK's own error text is kept off `reason` (it may quote a redacted key); the cause keeps it.
      throw new ProviderUnavailableError(timedOut ? "timeout" : kind, { cause: err });
    } finally {
      clearTimeout(timer);
    }
  }
}
