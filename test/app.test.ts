// The app (issue 40) through inject(): signing in, sites, the plan document, inspections,
// corrective actions and exports, and the security rules (accounts walled off, HTML escaped
// everywhere, CSRF, a new session id at sign-in, idle expiry, photo refusals, read-only after a
// cancelled plan, sign-in limits per address).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { strFromU8, unzipSync } from "fflate";
import { extractText, getDocumentProxy } from "unpdf";
import { KeyKind, Plan, SubscriptionStatus } from "@permits/proto/entitlement/v1/entitlement";
import { ManualClock, startEmbedded, type Embedded } from "./support/embedded.js";
import { AppVisitor, PNG } from "./support/app-browser.js";
import { appPageText, wordProblems } from "./support/answer-words.js";

const EVIL = "<script>alert(1)</script>";
const SITE = { state: "MA", activity: "construction", acres: "3", address: "12 Mill Road, Lowell", operator_name: "Acme Earthworks" };
let t: Embedded;
let clock: ManualClock;
let proKey: string;
let otherKey: string;
let testKey: string;

async function liveKey(plan: Plan): Promise<string> {
  return (await t.clients.entitlement.issueKey({ kind: KeyKind.LIVE, plan, label: "app test" })).secret;
}

async function signedIn(key = proKey): Promise<AppVisitor> {
  const v = new AppVisitor(t.app);
  const res = await v.signIn(key);
  expect(res.statusCode).toBe(303);
  await v.get("/app");
  return v;
}

async function newSite(v: AppVisitor, name: string, fields: Record<string, string> = {}): Promise<string> {
  await v.get("/app/sites/new");
  const res = await v.post("/app/sites", { name, ...SITE, ...fields });
  expect(res.statusCode, res.body).toBe(303);
  return res.headers.location as string;
}

async function pdfText(bytes: Buffer): Promise<string> {
  const { text } = await extractText(await getDocumentProxy(new Uint8Array(bytes)), { mergePages: true });
  return (text as string).replace(/\s+/g, " ");
}

beforeAll(async () => {
  clock = new ManualClock(Date.UTC(2026, 10, 28, 12));
  t = await startEmbedded({}, { clock });
  proKey = await liveKey(Plan.PRO);
  otherKey = await liveKey(Plan.SCALE);
  testKey = (await t.clients.entitlement.issueKey({ kind: KeyKind.TEST, plan: Plan.UNSPECIFIED, label: "t" })).secret;
}, 120_000);

afterAll(async () => {
  await t?.close();
});

describe("GET / and signing in", () => {
  it("serves a landing page that says what the service answers and links to the docs, pricing and sign-in", async () => {
    const res = await t.app.inject({ method: "GET", url: "/" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    for (const link of ['href="/docs"', 'href="/pricing"', 'href="/app"']) expect(res.body).toContain(link);
    expect(res.body).toContain("POST /api/v1/determine");
  });

  it("shows the sign-in form with a CSRF token, and refuses a sign-in without the token", async () => {
    const v = new AppVisitor(t.app);
    const page = await v.get("/app");
    expect(page.statusCode).toBe(200);
    expect(page.body).toMatch(/<form method="post" action="\/app\/session">/);
    expect(v.token).not.toBe("");
    const res = await v.post("/app/session", { api_key: proKey }, { csrf: false });
    expect(res.statusCode).toBe(403);
    expect(res.body).toContain("This form has expired or did not come from this site");
    expect(v.cookies.has("app_session")).toBe(false);
  });

  it("opens the workspace for a live Pro key: an HttpOnly, SameSite=Lax session cookie, and a new id at every sign-in", async () => {
    const v = new AppVisitor(t.app);
    const first = await v.signIn(proKey);
    expect([first.statusCode, first.headers.location]).toEqual([303, "/app"]);
    const cookie = String(([] as string[]).concat(first.headers["set-cookie"] as string[]).find((c) => c.startsWith("app_session=")));
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\/app/);
    expect(cookie).not.toMatch(/Secure/); // plain HTTP here; behind TLS it is Secure (next test)
    const before = v.cookies.get("app_session")!;
    expect((await v.get("/app")).body).toContain("<h1>Your sites</h1>");
    await v.signIn(proKey);
    const after = v.cookies.get("app_session")!;
    expect(after).not.toBe(before);
    // The old id no longer opens anything.
    const old = await t.app.inject({ method: "GET", url: "/app", headers: { cookie: `app_session=${before}` } });
    expect(old.body).toContain("Sign in to your sites");
  });

  it("marks the session cookie Secure when the request came over TLS through a trusted proxy", async () => {
    const tls = await startEmbedded({ TRUST_PROXY: "127.0.0.1" }, { clock });
    try {
      const key = (await tls.clients.entitlement.issueKey({ kind: KeyKind.LIVE, plan: Plan.PRO, label: "tls" })).secret;
      const page = await tls.app.inject({ method: "GET", url: "/app", headers: { "x-forwarded-proto": "https", "x-forwarded-for": "203.0.113.50" } });
      const csrf = page.cookies.find((c) => c.name === "_csrf")!;
      const token = /name="_csrf" value="([^"]+)"/.exec(page.body)![1];
      const res = await tls.app.inject({ method: "POST", url: "/app/session", payload: new URLSearchParams({ _csrf: token, api_key: key }).toString(), headers: { "content-type": "application/x-www-form-urlencoded", cookie: `_csrf=${csrf.value}`, "x-forwarded-proto": "https", "x-forwarded-for": "203.0.113.50" } });
      expect(res.statusCode).toBe(303);
      expect(res.cookies.find((c) => c.name === "app_session")).toMatchObject({ secure: true, httpOnly: true, sameSite: "Lax" });
    } finally {
      await tls.close();
    }
  }, 120_000);

  it("tells a key whose plan does not include the app which plans do, with a link to /pricing", async () => {
    for (const key of [testKey, t.env.SANDBOX_KEY ?? "svc_sandbox_public"]) {
      const res = await new AppVisitor(t.app).signIn(key);
      expect(res.statusCode).toBe(403);
      expect(res.body).toContain("Stormwater Pro</strong> and <strong>Stormwater Scale</strong>");
      expect(res.body).toContain('<a href="/pricing">');
    }
  });

  it("refuses an unknown key in plain words, without echoing it", async () => {
    const res = await new AppVisitor(t.app).signIn("svc_live_" + "x".repeat(40));
    expect(res.statusCode).toBe(401);
    expect(res.body).toContain("That key was not recognised");
    expect(res.body).not.toContain("x".repeat(40));
  });

  it("limits sign-in attempts per address: the sixth in a minute is refused with Retry-After", async () => {
    const v = new AppVisitor(t.app);
    const codes = [];
    for (let n = 0; n < 6; n++) codes.push((await v.signIn("svc_live_wrong")).statusCode);
    expect(codes).toEqual([401, 401, 401, 401, 401, 429]);
    const last = await v.signIn(proKey);
    expect(last.statusCode).toBe(429);
    expect(last.headers["retry-after"]).toMatch(/^\d+$/);
    expect(last.body).toContain("Too many sign-in attempts");
  });

  it("ends a session at sign-out and after 12 hours idle", async () => {
    const v = await signedIn();
    const out = await v.post("/app/session/end", {});
    expect(out.statusCode).toBe(303);
    expect((await v.get("/app")).body).toContain("Sign in to your sites");
    const idle = await signedIn();
    clock.advance(11 * 3600_000);
    expect((await idle.get("/app")).body).toContain("<h1>Your sites</h1>");
    clock.advance(12 * 3600_000 + 60_000);
    expect((await idle.get("/app")).body).toContain("Sign in to your sites");
    clock.set(Date.UTC(2026, 10, 28, 12));
  });
});

describe("sites and the plan document", () => {
  it("shows the parser's errors beside their fields, under the form's labels, and keeps what was typed", async () => {
    const v = await signedIn();
    await v.get("/app/sites/new");
    const res = await v.post("/app/sites", { name: "Bad input", ...SITE, state: "ZZ", acres: "lots", partOfLargerPlan: "true" });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('<span class="field-error" id="acres-error">Total acres disturbed over the whole project: give a number of acres, 0 or more, e.g. 4.5 (“lots” is not a number).</span>');
    expect(res.body).toContain('<li><a href="#acres">Total acres disturbed over the whole project: give a number'); // the summary at the top says which field too
    expect(res.body).toContain('value="ZZ"');
    const unknown = await v.post("/app/sites", { name: "Bad state", ...SITE, state: "ZZ" });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.body).toMatch(/id="state-error">[^<]*ZZ/);
  });

  it("creates a site, lists it on the dashboard with its next inspection, and shows its determination with citations", async () => {
    const v = await signedIn();
    const at = await newSite(v, "Mill Road");
    expect(at).toMatch(/^\/app\/sites\/[\w-]+$/);
    const page = await v.get(at);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain("Permit coverage is required");
    expect(page.body).toContain("inspection.frequency.option1");
    expect(page.body).toContain('<span class="unverified">Unverified</span>');
    expect(page.body).toContain("Inspection schedule");
    const dash = await v.get("/app");
    expect(dash.body).toContain(`<a href="${at}">Mill Road</a>`);
  });

  it("keeps each account's sites to itself: another account's site is not found on every route", async () => {
    const owner = await signedIn();
    const at = await newSite(owner, "Private site");
    await owner.post(`${at}/plans`, {});
    const other = await signedIn(otherKey);
    expect((await other.get("/app")).body).not.toContain("Private site");
    for (const path of ["", "/plans/1.pdf", "/plans/1.docx", "/records.csv", "/records.pdf", "/records.zip", "/inspections/new"]) {
      const res = await other.get(at + path);
      expect(res.statusCode, `${path}: ${res.body.slice(-400)}`).toBe(404);
      expect(res.body).not.toContain("Private site");
    }
    expect((await other.post(`${at}/plans`, {})).statusCode).toBe(404);
  });

  it("escapes a site named <script> on every page and in both plan documents", async () => {
    const v = await signedIn();
    const at = await newSite(v, EVIL);
    expect((await v.post(`${at}/plans`, {})).statusCode).toBe(303);
    for (const path of ["/app", at, `${at}/inspections/new`]) {
      const body = (await v.get(path)).body;
      expect(body, path).not.toContain(EVIL);
      expect(body, path).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    }
    const docx = await v.get(`${at}/plans/1.docx`);
    expect(docx.headers["content-type"]).toBe("application/vnd.openxmlformats-officedocument.wordprocessingml.document");
    const xml = strFromU8(unzipSync(new Uint8Array(docx.rawPayload))["word/document.xml"]);
    expect(xml).not.toContain(EVIL);
    expect(xml).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    const pdf = await v.get(`${at}/plans/1.pdf`);
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe("%PDF-");
    expect(await pdfText(pdf.rawPayload)).toContain(EVIL); // as text on the page, never markup
  }, 60_000);

  it("generates numbered plan versions whose documents carry document 1's notices", async () => {
    const v = await signedIn();
    const at = await newSite(v, "Versions");
    await v.post(`${at}/plans`, {});
    await v.post(`${at}/plans`, {});
    const page = await v.get(at);
    expect(page.body).toContain(`href="${at}/plans/2.docx"`);
    const text = await pdfText((await v.get(`${at}/plans/2.pdf`)).rawPayload);
    expect(text).toContain("does not perform the physical site inspections");
    expect((await v.get(`${at}/plans/3.pdf`)).statusCode).toBe(404);
  }, 60_000);
});

describe("inspections, corrective actions and exports", () => {
  it("records, signs, refuses to change, amends, closes a corrective action and exports", async () => {
    const v = await signedIn();
    const at = await newSite(v, "Inspected site");
    await v.get(`${at}/inspections/new`);
    const created = await v.postMultipart(
      `${at}/inspections`,
      { inspected_on: "2026-11-27", start_time: "08:30", end_time: "09:15", inspector_name: "Dana Ortiz", inspector_title: "Site superintendent", qualification: "CPESC", type: "routine", rainfall_inches: "0.3", rainfall_source: "rain gauge on site", weather: "clear", phase: "grading", areas_inspected: "whole site", controls: "north silt fence sagging", finding_1_location: "north silt fence", finding_1_description: "fence down over 20 ft", finding_1_corrective: "true" },
      [{ field: "photos", filename: "fence.png", type: "image/png", bytes: PNG }],
    );
    expect(created.statusCode, created.body).toBe(303);
    const report = created.headers.location as string;
    const draft = await v.get(report);
    expect(draft.body).toContain("draft, not signed yet");
    expect(draft.body).toMatch(/<h2>Photos \(1\)<\/h2><ul><li><a href="\/app\/sites\/[\w-]+\/photos\/[\w-]+">fence.png<\/a> <span class="muted">added in version 1<\/span>/);
    expect(draft.body).toContain('<tr><th scope="row">Inspector&#39;s qualification</th><td>CPESC</td></tr>');
    // The corrective action opened from the finding, due on the permit's deadline.
    const site = await v.get(at);
    expect(site.body).toContain("north silt fence: fence down over 20 ft");
    // The earliest deadline of the site's corrective.* rules: the record within 24 hours (corrective.documentation).
    expect(site.body).toMatch(/due <span>2026-11-28<\/span>/);

    expect((await v.post(`${report}/sign`, { signed_by: "Dana Ortiz" })).statusCode).toBe(400); // not agreed
    expect((await v.post(`${report}/sign`, { signed_by: "Dana Ortiz", agree: "true" })).statusCode).toBe(303);
    const signed = await v.get(report);
    expect(signed.body).toContain("signed by Dana Ortiz on 2026-11-28");
    // The date in the heading never breaks at its hyphens; the amendment form waits behind its summary.
    expect(signed.body).toContain('<h1>Inspection of <span class="nowrap">2026-11-27</span></h1>');
    expect(signed.body).toContain("<details><summary>Amend this report</summary>");

    const change = await v.post(report, { inspected_on: "2026-11-27", weather: "rain" });
    expect(change.statusCode).toBe(409);
    expect(change.body).toContain("a signed record never changes");

    const amended = await v.post(`${report}/amendments`, { reason: "weather was misrecorded", inspected_on: "2026-11-27", weather: "light rain", type: "routine" });
    expect(amended.statusCode).toBe(303);
    const v2 = await v.get(report);
    expect(v2.body).toContain("Version 2:</strong> amendment (version 2), not signed yet. Reason: weather was misrecorded");
    expect(v2.body).toContain("Version 1: signed by Dana Ortiz");

    const ca = /action="(\/app\/sites\/[^"]+\/corrective-actions\/[^"]+\/complete)"/.exec(site.body)![1];
    expect((await v.post(ca, { completed_on: "2026-11-28", note: "fence reset and staked" })).statusCode).toBe(303);
    expect((await v.get(at)).body).toContain("None open.");

    const csv = await v.get(`${at}/records.csv`);
    expect(csv.headers["content-type"]).toBe("text/csv; charset=utf-8");
    const lines = csv.body.split("\r\n");
    expect(lines[0]).toBe("record,id,version,status,inspected_on,start_time,end_time,inspector,inspector_title,inspector_qualification,type,storm_triggered,rainfall_inches,rainfall_source,weather,phase,areas_inspected,controls_needing_repair,stabilization,discharges_seen,unsafe_areas,findings,summary,photos,amendment_reason,signed_by,signed_at,report_sha256");
    expect(lines.filter((l) => l.startsWith("inspection,"))).toHaveLength(2);
    expect(csv.body).toMatch(/corrective_action,[^,]+,[^,]+,f1,north silt fence: fence down over 20 ft,2026-11-27,2026-11-28,permit rule,Corrective action record,2022 CGP Part 5.4 \(number from earlier CGPs\),Unverified,completed,2026-11-28,2026-11-28: fence reset and staked/);
    const pdf = await pdfText((await v.get(`${at}/records.pdf`)).rawPayload);
    expect(pdf).toContain("Inspection of 2026-11-27, version 1 (signed by Dana Ortiz on 2026-11-28)");
    expect(pdf).toContain("fence reset and staked");
    const zip = unzipSync(new Uint8Array((await v.get(`${at}/records.zip`)).rawPayload));
    expect(Object.keys(zip)).toContain("manifest.json");
    expect(Object.keys(zip).some((f) => f.startsWith("photos/"))).toBe(true);
  }, 60_000);

  it("refuses a file that is not a photo, and a photo over 10 MB, in plain words, saving nothing", async () => {
    const v = await signedIn();
    const at = await newSite(v, "Photo rules");
    await v.get(`${at}/inspections/new`);
    const fields = { inspected_on: "2026-11-27", type: "routine" };
    const notImage = await v.postMultipart(`${at}/inspections`, fields, [{ field: "photos", filename: "notes.png", type: "image/png", bytes: Buffer.from("GIF89a not a png") }]);
    expect(notImage.statusCode).toBe(400);
    expect(notImage.body).toContain("&quot;notes.png&quot; is not a JPEG, PNG, WebP or HEIC photo, so nothing was saved.");
    const big = await v.postMultipart(`${at}/inspections`, fields, [{ field: "photos", filename: "huge.png", type: "image/png", bytes: Buffer.concat([PNG, Buffer.alloc(10 * 1024 * 1024)]) }]);
    expect(big.statusCode).toBe(400);
    expect(big.body).toContain('<span class="field-error" id="photos-error">&quot;huge.png&quot; is larger than 10 MB, so nothing was saved.');
    expect((await v.get(at)).body).toContain("No inspections recorded yet.");
  }, 60_000);
});

describe("how often a site is inspected", () => {
  async function signedInspection(v: AppVisitor, at: string, date: string): Promise<void> {
    await v.get(`${at}/inspections/new`);
    const made = await v.postMultipart(`${at}/inspections`, { inspected_on: date, type: "routine", inspector_name: "Dana Ortiz" }, []);
    expect(made.statusCode, made.body).toBe(303);
    await v.get(made.headers.location as string);
    expect((await v.post(`${made.headers.location}/sign`, { signed_by: "Dana Ortiz", agree: "true" })).statusCode).toBe(303);
  }

  it("follows the permit's option the operator chose", async () => {
    const v = await signedIn();
    const at = await newSite(v, "Option one", { dischargesToImpairedWater: "no", dischargesToTier2Water: "no" });
    await signedInspection(v, at, "2026-11-27");
    expect((await v.get(at)).body).toContain("<strong>Next routine inspection:</strong> no date yet.");
    expect((await v.post(`${at}/frequency`, { option_id: "inspection.frequency.nonsense" })).statusCode).toBe(400);
    expect((await v.post(`${at}/frequency`, { option_id: "inspection.frequency.option1" })).statusCode).toBe(303);
    const page = await v.get(at);
    expect(page.body).toContain("<strong>Next routine inspection:</strong> <span class=\"nowrap\">2026-12-04</span>");
    expect(page.body).toMatch(/value="inspection\.frequency\.option1" checked/);
  }, 60_000);

  it("where the permit's frequency is not held, follows the one the operator enters, shown as theirs", async () => {
    const v = await signedIn();
    const at = await newSite(v, "Own frequency", { state: "IL" });
    const before = await v.get(at);
    expect(before.body).toContain("This service holds no inspection frequency for your permit.");
    expect((await v.post(`${at}/frequency`, { every_days: "0" })).statusCode).toBe(400);
    expect((await v.post(`${at}/frequency`, { every_days: "10" })).statusCode).toBe(303);
    await signedInspection(v, at, "2026-11-20");
    const page = await v.get(at);
    expect(page.body).toContain("<strong>Next routine inspection:</strong> <span class=\"nowrap\">2026-11-30</span>");
    expect(page.body).toMatch(/entered by the operator|as you entered|you entered/i);
  }, 60_000);
});

describe("the words of the app", () => {
  it("uses the words list of the answers on every page a person reads", async () => {
    const v = await signedIn();
    const at = await newSite(v, "Words");
    await v.get(`${at}/inspections/new`);
    const report = (await v.postMultipart(`${at}/inspections`, { inspected_on: "2026-11-27", type: "routine", finding_1_description: "rill on the slope", finding_1_corrective: "true" }, [])).headers.location as string;
    const pages: [string, string][] = [];
    for (const url of ["/", "/app", "/app/sites/new", at, `${at}/inspections/new`, report]) pages.push([url, (await v.get(url)).body]);
    pages.push(["not in the plan", (await new AppVisitor(t.app).signIn(testKey)).body]);
    pages.push(["read-only refusal", (await v.post(`${report}`, { inspected_on: "x" }, { csrf: false })).body]);
    expect(pages.flatMap(([name, body]) => wordProblems(appPageText(body)).map((p) => `${name}: ${p}`))).toEqual([]);
  }, 60_000);
});

describe("a cancelled plan", () => {
  it("opens the workspace read-only: records and exports stay, changes are refused", async () => {
    const { sessionId } = await t.clients.entitlement.startCheckout({ planId: "stormwater_pro", successUrl: "http://localhost/s?session_id={CHECKOUT_SESSION_ID}", cancelUrl: "http://localhost/c" });
    const { subscriptionId } = await t.clients.entitlement.completeLocalCheckout({ sessionId });
    const live = (await t.clients.entitlement.revealCheckout({ sessionId })).keys.find((k) => k.kind === KeyKind.LIVE)!.secret;
    const v = await signedIn(live);
    const at = await newSite(v, "Kept after cancel");
    await t.clients.entitlement.setLocalSubscription({ subscriptionId, status: SubscriptionStatus.CANCELED });
    const after = await signedIn(live);
    const dash = await after.get("/app");
    expect(dash.body).toContain("your sites are read-only");
    expect(dash.body).toContain("Kept after cancel");
    expect(dash.body).not.toContain('href="/app/sites/new"');
    expect((await after.get(at)).statusCode).toBe(200);
    expect((await after.get(`${at}/records.csv`)).statusCode).toBe(200);
    // A session opened before the plan ended turns read-only at its next change.
    const before = await v.post("/app/sites", { name: "Started before cancel", ...SITE });
    expect(before.statusCode).toBe(403);
    expect((await v.get("/app")).body).toContain("your sites are read-only");
    const refused = await after.post("/app/sites", { name: "New", ...SITE });
    expect(refused.statusCode).toBe(403);
    expect(refused.body).toContain("Your plan has been cancelled");
    expect((await after.post(`${at}/plans`, {})).statusCode).toBe(403);
  }, 60_000);
});
