// Test support of @permits/entitlement (left out of the build): a fake Stripe API.
export * from "./fake-stripe.js";
// The defaults the configuration page documents (test/docs.test.ts keeps the page equal to them).
export { DEFAULT_PROVIDER_TIMEOUT_MS, DEFAULT_STRIPE_URL } from "./config.js";
export { DEFAULT_REDIS_PREFIX } from "./redis-store.js";
