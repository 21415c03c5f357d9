// The plans of both documents as data. Limits are the contract's; no price is stated here
// because neither document states one.
/** What the app at /app gives a Stormwater Pro or Scale plan: what is there, nothing more (docs/using.md, "The app"). */
const APP_FEATURES = [
  "the app at /app: your sites, each with its permit answer and inspection schedule",
  "a draft plan document (SWPPP) per site, as Word and PDF, every version kept",
  "inspection reports with photos that you sign; a signed report never changes (an amendment is a new version with its reason)",
  "corrective actions with the deadlines your permit gives",
  "exports for an inspector (CSV, PDF, and a ZIP of everything with file fingerprints); after cancelling, read-only access until the records' retention ends",
];

export const PRICING = {
  currency: null,
  howToGetAKey: [
    "Try it at once: the stormwater endpoints answer without a key (the anonymous allowance), and the public sandbox key works on both the stormwater and the nationwide permit (NWP) endpoints with no signup, counted per calling IP.",
    "Buy Stormwater Pro or Scale, or NWP Pro, with the Buy buttons on /pricing. After checkout the success page shows your keys once: for a stormwater plan a live key of the plan (svc_live_…) and a free test key (svc_test_…); for NWP Pro the NWP Pro key of your subscription (nwp_…). Send a key as Authorization: Bearer <key> or X-API-Key: <key>.",
    "An NWP Pro key is made from its subscription: reissue it at POST /recover with the subscription id from the receipt.",
    "Manage or cancel a subscription from /pricing with a key from its checkout (Stripe's customer portal). Cancelling a stormwater plan stops its live key straight away, while the test key keeps working; an NWP Pro key keeps working on the free allowance.",
  ],
  note: "Prices are shown with the Buy buttons on /pricing, as the payment provider states them. Every stormwater endpoint answers without a paid plan; a paid plan raises the request limits and adds app features. Past a monthly ceiling the API refuses with rate_limited and never bills overage.",
  surfaces: [
    {
      surface: "stormwater",
      document: 1,
      keyHeader: "Authorization: Bearer <key> or X-API-Key",
      plans: [
        { id: "anonymous", name: "Anonymous", purchasable: false, key: "none", billable: false, limits: [{ window: "minute", limit: 4 }, { window: "day", limit: 20 }], bucket: "per calling IP" },
        { id: "sandbox", name: "Public sandbox key", purchasable: false, key: "the public sandbox key", billable: false, limits: [{ window: "minute", limit: 10 }, { window: "day", limit: 200 }], bucket: "per calling IP" },
        { id: "test", name: "Own test key", purchasable: false, key: "svc_test_…", billable: false, limits: [{ window: "minute", limit: 10 }, { window: "day", limit: 200 }], bucket: "per key" },
        { id: "pro", name: "Pro", purchasable: true, key: "svc_live_…", billable: true, limits: [{ window: "minute", limit: 60 }, { window: "month", limit: 1000, hardCeiling: true }], bucket: "per key", features: APP_FEATURES },
        { id: "scale", name: "Scale", purchasable: true, key: "svc_live_…", billable: true, limits: [{ window: "minute", limit: 300 }, { window: "month", limit: 10000, hardCeiling: true }], bucket: "per key", features: APP_FEATURES },
      ],
    },
    {
      surface: "nwp",
      document: 2,
      keyHeader: "Authorization: Bearer <key> or X-API-Key",
      plans: [
        { id: "sandbox", name: "Public sandbox key", purchasable: false, key: "the public sandbox key", limits: [{ window: "hour", limit: 25 }], bucket: "per calling IP" },
        { id: "pro", name: "Pro", purchasable: true, key: "the NWP Pro key nwp_<subscriptionId>_<signature>", limits: [{ window: "day", limit: 5000 }], bucket: "per subscription", features: ["batch determinations of up to 100 projects"] },
        { id: "free", name: "free (lapsed Pro)", purchasable: false, key: "a Pro key whose subscription ended", limits: [{ window: "day", limit: 50 }], bucket: "per subscription" },
      ],
    },
  ],
};

/** The public sandbox key as every discovery document shows it (GET /api/v1, the pricing data). */
export function sandboxKeyInfo(key: string) {
  return { key, send: `Authorization: Bearer ${key} or X-API-Key: ${key}`, note: "The public sandbox key: no signup, works on both the stormwater and the nationwide permit (NWP) endpoints, limited per calling IP (see /pricing)." };
}

/**
 * The pricing data as served (GET /api/v1/pricing, and /pricing as JSON): the plans, and the
 * sandbox key by value, as the pricing page names it. Neither document fixes this shape.
 */
export function pricingData(sandboxKey: string) {
  return { ...PRICING, sandboxKey: sandboxKeyInfo(sandboxKey) };
}
