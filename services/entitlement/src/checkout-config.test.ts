// Checkout's configuration: secrets from a variable or a _FILE, price ids checked, and checkout
// off (with a reason /pricing shows) where Stripe is configured without a webhook secret.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadCheckoutConfig } from "./checkout-config.js";
import { loadEntitlementConfig } from "./config.js";

const secretFile = (text: string) => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "checkout-config-")), "secret");
  writeFileSync(file, text);
  return file;
};

describe("checkout configuration", () => {
  it("is the local provider's with PAYMENT_PROVIDER=local, whatever else is set", () => {
    expect(loadCheckoutConfig({ STRIPE_PRICE_NWP_PRO: "garbage" }, "local", [])).toEqual({ provider: "local" });
  });

  it("reads the webhook secret from its variable or its file, and each plan's price id", () => {
    const env = { STRIPE_WEBHOOK_SECRET: "whsec_abc", STRIPE_PRICE_STORMWATER_PRO: "price_1Pro", STRIPE_PRICE_NWP_PRO: "price_1Nwp" };
    expect(loadCheckoutConfig(env, "stripe", [])).toEqual({ provider: "stripe", webhookSecret: "whsec_abc", priceIds: { stormwater_pro: "price_1Pro", nwp_pro: "price_1Nwp" } });
    const fromFile = loadCheckoutConfig({ STRIPE_WEBHOOK_SECRET_FILE: secretFile("whsec_fromfile\n") }, "stripe", []);
    expect(fromFile).toEqual({ provider: "stripe", webhookSecret: "whsec_fromfile", priceIds: {} });
    expect(() => loadCheckoutConfig({ STRIPE_WEBHOOK_SECRET: "whsec_a", STRIPE_WEBHOOK_SECRET_FILE: secretFile("whsec_b") }, "stripe", [])).toThrow(/STRIPE_WEBHOOK_SECRET and STRIPE_WEBHOOK_SECRET_FILE are both set/);
  });

  it("refuses a price id that is not one, naming the variable", () => {
    expect(() => loadCheckoutConfig({ STRIPE_WEBHOOK_SECRET: "whsec_abc", STRIPE_PRICE_STORMWATER_SCALE: "prod_123" }, "stripe", [])).toThrow("invalid configuration: STRIPE_PRICE_STORMWATER_SCALE: must be a Stripe price id (price_…)");
  });

  it("turns checkout off without a webhook secret, and warns when prices were set for it", () => {
    const warnings: string[] = [];
    expect(loadCheckoutConfig({ STRIPE_PRICE_NWP_PRO: "price_1Nwp" }, "stripe", warnings)).toEqual({ provider: "off", reason: "checkout is not configured here (STRIPE_WEBHOOK_SECRET is not set)" });
    expect(warnings).toEqual(["STRIPE_PRICE_* is set but STRIPE_WEBHOOK_SECRET is not: checkout is not configured here (STRIPE_WEBHOOK_SECRET is not set)"]);
  });

  it("reads the Stripe API key from PAYMENT_PROVIDER_API_KEY_FILE", () => {
    const config = loadEntitlementConfig({ PAYMENT_PROVIDER: "stripe", PAYMENT_PROVIDER_API_KEY_FILE: secretFile("sk_test_fromfile\n"), LEGACY_KEY_SECRET: "x".repeat(20) });
    expect(config.provider).toMatchObject({ name: "stripe", apiKey: "sk_test_fromfile" });
  });
});
