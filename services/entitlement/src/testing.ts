// Test support of @permits/entitlement (left out of the build): a fake Stripe API.
export * from "./fake-stripe.js";
