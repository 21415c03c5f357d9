// An outage is named for what failed: the payment provider, or the key store behind the local one.
import { describe, expect, it } from "vitest";
import { Code, ConnectError } from "@connectrpc/connect";
import { Authenticator } from "./authenticate.js";
import { LocalProvider, ProviderUnavailableError, type PaymentProvider } from "./provider.js";
import type { EntitlementStore } from "./store.js";

const failingStore = { getSubscription: () => Promise.reject(new Error("ECONNREFUSED 127.0.0.1:6379")) } as unknown as EntitlementStore;

function authenticator(provider: PaymentProvider) {
  return new Authenticator({ store: failingStore, provider, sandboxKey: "svc_sandbox_public", legacySecret: "s".repeat(32) });
}

describe("subscription check outages", () => {
  it("the local provider's store down: the key store is named, with its retry-after", async () => {
    const err = await authenticator(new LocalProvider(failingStore)).lookupSubscription("sub_1").catch((e) => ConnectError.from(e));
    expect([err.code, err.metadata.get("retry-after")]).toEqual([Code.Unavailable, "2"]);
    expect(err.rawMessage).toMatch(/^The key store could not be reached/);
    expect(err.rawMessage).not.toMatch(/payment provider/);
  });

  it("a payment provider down: the payment provider is named, and the subscription is not said to have ended", async () => {
    const down: PaymentProvider = { name: "stripe", lookupSubscription: () => Promise.reject(new ProviderUnavailableError("timeout")) } as PaymentProvider;
    const err = await authenticator(down).lookupSubscription("sub_1").catch((e) => ConnectError.from(e));
    expect([err.code, err.metadata.get("retry-after")]).toEqual([Code.Unavailable, "5"]);
    expect(err.rawMessage).toMatch(/could not reach the payment provider.*does not mean the subscription ended/);
  });
});
