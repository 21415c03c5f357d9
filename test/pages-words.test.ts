// Issue 41, section 3: the words list of the answer corpus (test/support/answer-words.ts) run over
// what a person reads on the HTML pages (/pricing, /docs, every checkout page in each of its
// states), the reference answers (every jurisdiction, credential, NWP, district and state's
// Section 401 record) and the error messages about keys, each rendered through inject().
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeyKind, Plan } from "@permits/proto/entitlement/v1/entitlement";
import { deriveLegacyKey } from "@permits/entitlement";
import { startEmbedded, type Embedded } from "./support/embedded.js";
import { texts, wordProblems } from "./support/answer-words.js";
import { generousTiersFile } from "./support/processes.js";

const SECRET = "test-legacy-secret-0123456789";
const FORM = { "content-type": "application/x-www-form-urlencoded" };
const JSON_BODY = { "content-type": "application/json" };

/** The text a person reads on a page: no scripts, styles or tags; entities decoded. */
function pageText(html: string): string {
  return html
    .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1>/gi, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, "&")
    .replace(/\s+/g, " ")
    .trim();
}

let gw: Embedded;
beforeAll(async () => {
  gw = await startEmbedded({ LEGACY_KEY_SECRET: SECRET, TIERS_FILE: generousTiersFile() });
}, 60_000);
afterAll(async () => gw?.close());

const get = (url: string) => gw.app.inject({ method: "GET", url, headers: { accept: "text/html" } });
const post = (url: string, payload: string) => gw.app.inject({ method: "POST", url, payload, headers: FORM });

/** Buys a plan locally: the session, the success page's first and second showing. */
async function bought(plan: string): Promise<{ sessionId: string; shown: string; again: string }> {
  const started = await post("/checkout", `plan=${plan}`);
  const sessionId = new URL(started.headers.location as string).searchParams.get("session_id")!;
  await post("/checkout/local/confirm", `session_id=${sessionId}`);
  const shown = (await get(`/checkout/success?session_id=${sessionId}`)).body;
  const again = (await get(`/checkout/success?session_id=${sessionId}`)).body;
  return { sessionId, shown, again };
}

describe("the words of every HTML page", () => {
  it("has none of the team's words on /pricing, /docs and each checkout page, in each state", async () => {
    const pages: [string, string][] = [];
    const page = async (name: string, res: Promise<{ statusCode: number; body: string }>) => {
      const r = await res;
      expect(r.statusCode, name).toBe(200);
      pages.push([name, r.body]);
    };
    await page("/pricing", get("/pricing"));
    await page("/docs/", get("/docs/"));
    const started = await post("/checkout", "plan=nwp_pro");
    const to = new URL(started.headers.location as string);
    await page("local confirmation", get(to.pathname + to.search));
    await page("manage, not confirmed", get(`/checkout/local/manage?session_id=${to.searchParams.get("session_id")}`));
    for (const plan of ["stormwater_pro", "nwp_pro"]) {
      const { sessionId, shown, again } = await bought(plan);
      pages.push([`${plan} success, keys shown`, shown], [`${plan} success, already shown`, again]);
      await page(`${plan} manage, active`, get(`/checkout/local/manage?session_id=${sessionId}`));
      await page(`${plan} cancelled`, post("/checkout/local/cancel", `session_id=${sessionId}`));
      await page(`${plan} manage, cancelled`, get(`/checkout/local/manage?session_id=${sessionId}`));
    }
    const problems = pages.flatMap(([name, html]) => wordProblems(pageText(html)).map((p) => `${name}: ${p}`));
    expect(problems).toEqual([]);
    // The pages were read: each has words, and the pricing page the buy section's.
    expect(pageText(pages[0][1])).toContain("Cancelling a stormwater plan: the plan's live key (svc_live_…) stops working at once");
  }, 60_000);
});

describe("the words of the key errors", () => {
  it("has none of the team's words in the messages of a refused key on either kind of endpoint", async () => {
    const e = gw.clients.entitlement;
    const live = (await e.issueKey({ kind: KeyKind.LIVE, plan: Plan.PRO, label: "words" })).secret;
    const nwpKey = deriveLegacyKey(SECRET, "sub_words_1");
    const site = JSON.stringify({ state: "NM", activity: "construction", acres: 3 });
    const project = JSON.stringify({ state: "CA", district: "SPK", activity: "residential-development", aquaticResourceType: "wetland", permanentImpactAcres: 0.3 });
    const answers = await Promise.all([
      gw.app.inject({ method: "POST", url: "/api/v1/determine/nwp", payload: project, headers: { ...JSON_BODY, authorization: `Bearer ${live}` } }),
      gw.app.inject({ method: "POST", url: "/api/v1/determine", payload: site, headers: { ...JSON_BODY, authorization: `Bearer ${nwpKey}` } }),
      gw.app.inject({ method: "POST", url: "/api/v1/determine/nwp", payload: project, headers: JSON_BODY }),
      gw.app.inject({ method: "POST", url: "/api/v1/determine/batch", payload: JSON.stringify({ projects: [] }), headers: { ...JSON_BODY, "x-api-key": "svc_sandbox_public" } }),
      gw.app.inject({ method: "POST", url: "/checkout/portal", payload: "api_key=svc_live_nothing", headers: FORM }),
    ]);
    expect(answers.map((r) => r.statusCode)).toEqual([401, 401, 401, 403, 401]);
    const messages = answers.map((r) => r.json().error.message as string);
    expect(messages.flatMap(wordProblems)).toEqual([]);
  });
});

describe("the words of the reference answers", () => {
  it("has none of the team's words in any jurisdiction, credential, NWP, district or state Section 401 answer", async () => {
    const read = async (url: string) => {
      const res = await gw.app.inject({ method: "GET", url, headers: { "x-api-key": "svc_sandbox_public", accept: "application/json" } });
      expect(res.statusCode, url).toBe(200);
      return res.json() as { data: Record<string, unknown> };
    };
    const jurisdictions = (await read("/api/v1/jurisdictions")).data.jurisdictions as { code: string }[];
    const districts = (await read("/api/v1/district")).data.districts as { code: string }[];
    const permits = (await read("/api/v1/nwp")).data.permits as { number: number }[];
    const states = [...new Set(districts.flatMap((d) => (d as unknown as { states: string[] }).states))];
    expect([jurisdictions.length, districts.length, permits.length]).toEqual([jurisdictions.length, 38, 57]);
    expect(states.length).toBeGreaterThan(50);
    const urls = [
      "/api/v1/jurisdictions", "/api/v1/district", "/api/v1/nwp", "/api/v1/activity", "/api/v1/coverage", "/api/v1", "/pricing",
      ...jurisdictions.flatMap((j) => [`/api/v1/jurisdictions/${j.code}`, `/api/v1/credentials/${j.code}`]),
      ...districts.map((d) => `/api/v1/district/${d.code}`),
      ...permits.map((p) => `/api/v1/nwp/${p.number}`),
      ...states.map((c) => `/api/v1/state/${c}/401`),
    ];
    const problems = new Set<string>();
    for (const url of urls) for (const t of texts((await read(url)).data)) for (const p of wordProblems(t)) problems.add(`${url}: ${p}`);
    expect([...problems]).toEqual([]);
  }, 120_000);
});
