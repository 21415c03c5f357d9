// The app's pages about one site beyond the first visit, through inject(): rain entered by hand
// (and the storm inspection the site's permit then calls for), editing a site (re-determined, the
// earlier answer kept byte for byte), closing it (the retention the sites service works out,
// shown before and after; read-only afterwards), and the rules every form keeps: CSRF, accounts
// walled off, HTML escaped, nothing changed from a cancelled plan's workspace.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { strFromU8, unzipSync } from "fflate";
import { KeyKind, Plan, SubscriptionStatus } from "@permits/proto/entitlement/v1/entitlement";
import { ManualClock, startEmbedded, type Embedded } from "./support/embedded.js";
import { AppVisitor } from "./support/app-browser.js";
import { wordProblems } from "./support/answer-words.js";

const EVIL = "<script>alert(1)</script>";
const ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;";
/** A Massachusetts site (EPA's construction permit) that drains to no impaired or Tier 2 water. */
const MA_SITE = { state: "MA", activity: "construction", acres: "3", address: "12 Mill Road, Lowell", operator_name: "Acme Earthworks", dischargesToImpairedWater: "no", dischargesToTier2Water: "no" };
let t: Embedded;
let clock: ManualClock;

async function visitor(plan = Plan.PRO): Promise<AppVisitor> {
  const { secret } = await t.clients.entitlement.issueKey({ kind: KeyKind.LIVE, plan, label: "site pages" });
  const v = new AppVisitor(t.app);
  expect((await v.signIn(secret)).statusCode).toBe(303);
  return v;
}

/** Adds a site through its form; the site's page address. */
async function addSite(v: AppVisitor, name: string, fields: Record<string, string> = {}): Promise<string> {
  await v.get("/app/sites/new");
  const res = await v.post("/app/sites", { name, ...MA_SITE, ...fields });
  expect(res.statusCode, res.body).toBe(303);
  return res.headers.location as string;
}

/** Posts a form after opening the page that carries it (its CSRF token). */
async function send(v: AppVisitor, formPage: string, action: string, fields: Record<string, string>) {
  await v.get(formPage);
  return v.post(action, fields);
}

/** The answers kept for a site, from its export: file name to JSON text. */
async function keptAnswers(v: AppVisitor, at: string): Promise<Map<string, string>> {
  const zip = unzipSync(new Uint8Array((await v.get(`${at}/records.zip`)).rawPayload));
  return new Map(Object.entries(zip).filter(([f]) => f.endsWith(".answer.json")).map(([f, b]) => [f, strFromU8(b)]));
}

beforeAll(async () => {
  clock = new ManualClock(Date.UTC(2026, 10, 28, 12));
  t = await startEmbedded({}, { clock });
}, 120_000);

afterAll(async () => {
  await t?.close();
});

describe("rain entered by hand", () => {
  it("lists the rain, and a storm inspection falls due when it reaches the permit's amount under the 14-day frequency", async () => {
    const v = await visitor();
    const at = await addSite(v, "Rainy site");
    // Until a frequency is chosen, the schedule points to the form that lists the permit's options, rather than spelling them out twice.
    const choosing = (await v.get(at)).body;
    expect(choosing).toContain("Your permit offers more than one inspection frequency: choose the one you follow under \u201cHow often you inspect\u201d below");
    expect(choosing).toContain("<details open><summary>How often you inspect</summary>");
    expect(choosing).toContain("Whether rain calls for an extra inspection depends on the inspection frequency you follow");
    expect((await v.post(`${at}/frequency`, { option_id: "inspection.frequency.option2" })).statusCode).toBe(303);
    const form = await v.get(`${at}/rain-events/new`);
    expect(form.body).toContain('<input id="occurred_on" name="occurred_on" type="date" value="2026-11-28" required>');
    expect((await v.post(`${at}/rain-events`, { occurred_on: "2026-11-26", inches: "0.1", measured_by: "rain gauge on site" })).headers.location).toBe(`${at}#rain`);
    let page = (await v.get(at)).body;
    expect(page).toContain('<td data-label="Rain">0.1 in.</td><td data-label="How it was measured">rain gauge on site</td>');
    expect(page).not.toContain("Inspection after");
    // The amount and the time come from the site's requirements (EPA's 2022 CGP, option 2), with their source.
    expect(page).toContain("Rain of <strong>0.25 inches or more</strong> calls for an extra inspection within <strong>24 hours</strong>");
    expect(page).toMatch(/Rain of [^]*?Inspection frequency, option 2: <a href="[^"]+" rel="noopener noreferrer">2022 CGP Part 4\.2 \(standard frequency\)<\/a>/);

    expect((await send(v, `${at}/rain-events/new`, `${at}/rain-events`, { occurred_on: "2026-11-27", inches: "0.3", measured_by: "NWS station KBOS" })).statusCode).toBe(303);
    page = (await v.get(at)).body;
    expect(page).toContain("<strong>Inspection after 0.3 in. of rain on 2026-11-27:</strong> <span class=\"nowrap\">2026-11-28</span>.");
    // Newest first.
    expect(page.indexOf("NWS station KBOS")).toBeLessThan(page.indexOf("rain gauge on site"));
    // The dashboard's next inspection is the storm inspection (no routine date yet: no start date, no inspection).
    expect((await v.get("/app")).body).toContain(`<a href="${at}">Rainy site</a></td><td data-label="Next inspection due"><span class="nowrap">2026-11-28</span></td>`);

    // The storm inspection made and signed in time: done, and the routine count starts from it (14 days).
    await v.get(`${at}/inspections/new`);
    const report = (await v.postMultipart(`${at}/inspections`, { inspected_on: "2026-11-28", type: "storm_event", inspector_name: "Dana Ortiz" }, [])).headers.location as string;
    await v.get(report);
    expect((await v.post(`${report}/sign`, { signed_by: "Dana Ortiz", agree: "true" })).statusCode).toBe(303);
    page = (await v.get(at)).body;
    expect(page).toContain("<strong>Inspection after 0.3 in. of rain on 2026-11-27:</strong> <span class=\"nowrap\">2026-11-28</span>, done on 2026-11-28.");
    expect(page).toContain("<strong>Next routine inspection:</strong> <span class=\"nowrap\">2026-12-12</span>");
  }, 60_000);

  it("where the service holds no rain amount for the permit, lists the rain and sets nothing due", async () => {
    const v = await visitor();
    const at = await addSite(v, "Illinois rain", { state: "IL" });
    expect((await send(v, `${at}/rain-events/new`, `${at}/rain-events`, { occurred_on: "2026-11-27", inches: "2", measured_by: "gauge" })).statusCode).toBe(303);
    const page = (await v.get(at)).body;
    expect(page).toContain('<td data-label="Rain">2 in.</td>');
    expect(page).toContain("This service holds no rain amount that calls for an extra inspection under the schedule you follow.");
    expect(page).not.toContain("Inspection after");
  }, 60_000);

  it("shows what is wrong beside each field, keeps what was typed and saves nothing", async () => {
    const v = await visitor();
    const at = await addSite(v, "Bad rain");
    const blank = await send(v, `${at}/rain-events/new`, `${at}/rain-events`, { occurred_on: "", inches: "lots", measured_by: " " });
    expect(blank.statusCode).toBe(400);
    expect(blank.body).toContain('<span class="field-error" id="occurred_on-error">Give the date of the rain.</span>');
    expect(blank.body).toContain('<span class="field-error" id="inches-error">Give the rain as a number of inches, e.g. 0.3.</span>');
    expect(blank.body).toContain('<span class="field-error" id="measured_by-error">Say how the rain was measured.</span>');
    expect(blank.body).toContain('value="lots"');
    // The summary above the form links each problem to its field.
    expect(blank.body).toContain('<li><a href="#inches">Give the rain as a number of inches, e.g. 0.3.</a></li>');
    // The service's refusals land beside their fields too, in the form's words (its labels, never the API's field names):
    // a date not yet come, more rain than any day's record, less than none.
    const future = await v.post(`${at}/rain-events`, { occurred_on: "2026-11-29", inches: "1", measured_by: "forecast" });
    expect(future.statusCode).toBe(400);
    expect(future.body).toContain('<span class="field-error" id="occurred_on-error">Date of the rain: give a real date, today or before.</span>');
    const record = await v.post(`${at}/rain-events`, { occurred_on: "2026-11-27", inches: "60", measured_by: "gauge" });
    expect(record.statusCode).toBe(400);
    expect(record.body).toContain(`<span class="field-error" id="inches-error">Rain (inches): 60 inches is more than this service takes for one day; check the amount (the day&#39;s total, e.g. 0.3).</span>`);
    const below = await v.post(`${at}/rain-events`, { occurred_on: "2026-11-27", inches: "-1", measured_by: "x".repeat(201) });
    expect(below.statusCode).toBe(400);
    expect(below.body).toContain('<li><a href="#inches">Rain (inches): give 0 or more, e.g. 0.3.</a></li>');
    expect(below.body).toContain('<li><a href="#measured_by">How it was measured: keep it to 200 characters of plain text.</a></li>');
    for (const refused of [future, record, below]) expect(refused.body).not.toMatch(/occurredOn|measuredBy|must be a number/);
    expect((await v.get(at)).body).toContain("No rain entered yet.");
  }, 60_000);
});

describe("editing a site", () => {
  it("shows the stored values, re-determines on save, keeps the earlier answer as it was and says the plan is behind", async () => {
    const v = await visitor();
    const at = await addSite(v, "Before the edit");
    expect((await send(v, at, `${at}/frequency`, { option_id: "inspection.frequency.option1" })).statusCode).toBe(303);
    expect((await send(v, at, `${at}/plans`, {})).statusCode).toBe(303);
    const [[firstFile, firstAnswer]] = [...(await keptAnswers(v, at))];
    const form = await v.get(`${at}/edit`);
    expect(form.statusCode).toBe(200);
    for (const field of ['name="name" type="text" value="Before the edit"', 'name="acres" type="number" value="3"', 'name="state" type="text" value="MA"', '<option value="no" selected>No</option>']) expect(form.body).toContain(field);
    expect(form.body).toContain(`<form method="post" action="${at}" novalidate>`);

    // The latest answer is the one saved last: the clock moves on between the two saves, as it always does outside a test.
    clock.advance(60_000);
    const saved = await v.post(at, { name: "After the edit", ...MA_SITE, acres: "6.5" });
    expect([saved.statusCode, saved.headers.location]).toEqual([303, at]);
    const page = (await v.get(at)).body;
    expect(page).toContain("<h1>After the edit</h1>");
    // The reason in words alone (the API's answer also writes the comparison in figures, "(6.5 >= 1)").
    expect(page).toContain("6.5 acres disturbed is at or above the 1-acre threshold, so stormwater permit coverage is required.");
    expect(page).not.toContain("&gt;= 1");
    // One way to record an inspection on the page, with the other things done on site.
    expect(page.split(">Record an inspection</a>")).toHaveLength(2);
    expect(page).toContain(`<a class="button" href="${at}/inspections/new">Record an inspection</a> <a class="button secondary" href="${at}/rain-events/new">Enter rain</a>`);
    expect(page.split(">Enter rain</a>")).toHaveLength(2);
    expect(page).toContain("Version 1 was made from an earlier answer for this site");
    // The frequency chosen is still one the permit offers: kept.
    expect(page).toMatch(/value="inspection\.frequency\.option1" checked/);
    const answers = await keptAnswers(v, at);
    expect(answers.size).toBe(2);
    expect(answers.get(firstFile)).toBe(firstAnswer);
    expect(JSON.parse(firstAnswer).input.disturbedAcres).toBe(3);
    expect([...answers.values()].map((a) => JSON.parse(a).input.disturbedAcres).sort()).toEqual([3, 6.5]);

    // Saving the same details again stores no second copy of the same answer.
    expect((await send(v, `${at}/edit`, at, { name: "After the edit", ...MA_SITE, acres: "6.5" })).statusCode).toBe(303);
    expect((await keptAnswers(v, at)).size).toBe(2);
  }, 60_000);

  it("refuses bad values with the determine parser's errors beside their fields, changing nothing", async () => {
    const v = await visitor();
    const at = await addSite(v, "Kept as it was");
    const res = await send(v, `${at}/edit`, at, { name: "", ...MA_SITE, acres: "lots", state: "ZZ" });
    expect(res.statusCode).toBe(400);
    // The form's own labels and words, never the API's field names (which its JSON answers keep).
    expect(res.body).toContain('<span class="field-error" id="acres-error">Total acres disturbed over the whole project: give a number of acres, 0 or more, e.g. 4.5 (“lots” is not a number).</span>');
    expect(res.body).toContain('<span class="field-error" id="name-error">Give the site a name.</span>');
    expect(res.body).toContain('value="ZZ"');
    const unknownState = await v.post(at, { name: "x", ...MA_SITE, state: "ZZ" });
    expect(unknownState.statusCode).toBe(400);
    expect(unknownState.body).toContain('<span class="field-error" id="state-error">State (two letters, e.g. TX): “ZZ” is not a US state, territory or DC code.</span>');
    const missing = await v.post(at, { name: "x", ...MA_SITE, acres: "", maxDisturbedAcresAtOneTime: "" });
    expect(missing.body).toContain('<span class="field-error" id="acres-error">Total acres disturbed over the whole project: the permit answer needs this.</span>');
    const tooMany = await v.post(at, { name: "x", ...MA_SITE, maxDisturbedAcresAtOneTime: "5" });
    expect(tooMany.body).toContain('<span class="field-error" id="maxDisturbedAcresAtOneTime-error">Most acres open at any one time: this cannot be more than the total acres disturbed.</span>');
    for (const body of [res.body, unknownState.body, missing.body, tooMany.body]) expect(body).not.toMatch(/disturbedAcres|maxDisturbedAcresAtOneTime \(| is required/);
    expect((await v.get(at)).body).toContain("<h1>Kept as it was</h1>");
    expect((await keptAnswers(v, at)).size).toBe(1);
  }, 60_000);
});

describe("closing a site", () => {
  it("shows until when the records are kept and why before closing, then closes it read-only", async () => {
    const v = await visitor();
    const at = await addSite(v, "Finished site");
    const form = await v.get(`${at}/close`);
    expect(form.body).toContain('<input id="closed_on" name="closed_on" type="date" value="2026-11-28" required>');
    const early = await v.post(`${at}/close`, { closed_on: "2026-11-01" });
    expect(early.statusCode).toBe(400);
    expect(early.body).toContain('<span class="field-error" id="closed_on-error">The close date (2026-11-01) must not be before the day the site was entered (2026-11-28).</span>');

    const preview = await send(v, `${at}/close`, `${at}/close`, { closed_on: "2026-11-28" });
    expect(preview.statusCode).toBe(200);
    expect(preview.body).toContain("<strong>The records will be kept until 2029-11-28.</strong> Kept three years after the close date 2026-11-28, the federal construction permit&#39;s period");
    expect(preview.body).toContain('<input type="hidden" name="confirm" value="yes">');
    expect((await v.get(at)).body).toContain(`href="${at}/close"`); // not closed by the preview

    const closed = await v.post(`${at}/close`, { closed_on: "2026-11-28", confirm: "yes" });
    expect([closed.statusCode, closed.headers.location]).toEqual([303, at]);
    const page = (await v.get(at)).body;
    expect(page).toContain("<strong>Closed on 2026-11-28</strong>");
    expect(page).toContain("A closed site cannot change");
    expect(page).toContain("<strong>Records kept until 2029-11-28.</strong>");
    expect(page).toContain("The site is closed: the app counts no more inspections for it.");
    for (const gone of [`${at}/edit`, `${at}/close"`, `${at}/rain-events/new`, `${at}/inspections/new`, `action="${at}/plans"`, `action="${at}/frequency"`]) expect(page).not.toContain(gone);
    expect(page).toContain(`href="${at}/records.zip"`);
    // On the dashboard, a closed site has nothing due and comes after the open ones.
    await addSite(v, "Still open");
    const dashboard = (await v.get("/app")).body;
    expect(dashboard).toContain('<span class="muted">None: closed on 2026-11-28.</span>');
    expect(dashboard.indexOf("Still open")).toBeLessThan(dashboard.indexOf("Finished site"));

    const again = await v.post(`${at}/close`, { closed_on: "2026-11-28", confirm: "yes" });
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain("This site was already closed on 2026-11-28, and a closed site cannot change.");
    for (const path of ["/edit", "/close", "/rain-events/new", "/inspections/new"]) expect((await v.get(at + path)).statusCode, path).toBe(409);
    // Every change page of a closed site says so, with until when its records are kept, rather than a form that cannot be saved.
    const inspectionForm = (await v.get(`${at}/inspections/new`)).body;
    expect(inspectionForm).toContain("<h1>Record an inspection</h1>");
    expect(inspectionForm).toContain("<strong>Records kept until 2029-11-28.</strong>");
    expect(inspectionForm).not.toContain(`action="${at}/inspections"`);
    const inspectionSent = await v.postMultipart(`${at}/inspections`, { inspected_on: "2026-11-28", type: "routine" }, []);
    expect([inspectionSent.statusCode, inspectionSent.body.includes("<strong>Closed on 2026-11-28</strong>")]).toEqual([409, true]);
    expect((await v.post(`${at}/rain-events`, { occurred_on: "2026-11-28", inches: "1", measured_by: "gauge" })).statusCode).toBe(409);
    expect((await v.post(at, { name: "Renamed", ...MA_SITE })).statusCode).toBe(409);
    expect((await v.get(at)).body).toContain("<h1>Finished site</h1>");
  }, 60_000);
});

describe("the words of these pages", () => {
  /** What a person reads: no tags, nor quotes (a permit's words); entities decoded. */
  const pageText = (body: string) =>
    body.replace(/<(style|q)\b[^>]*>[\s\S]*?<\/\1>/gi, " ").replace(/<[^>]+>/g, " ").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, "&").replace(/\s+/g, " ").trim();

  it("use the words list of the answers on the rain, edit and close pages, their refusals and a closed site", async () => {
    const v = await visitor();
    const at = await addSite(v, "Words");
    const pages: [string, string][] = [];
    for (const url of [`${at}/rain-events/new`, `${at}/edit`, `${at}/close`]) pages.push([url, (await v.get(url)).body]);
    pages.push(["rain refused", (await v.post(`${at}/rain-events`, { occurred_on: "", inches: "x", measured_by: "" })).body]);
    pages.push(["close refused", (await send(v, `${at}/close`, `${at}/close`, { closed_on: "2026-11-01" })).body]);
    pages.push(["close confirm", (await v.post(`${at}/close`, { closed_on: "2026-11-28" })).body]);
    await v.post(`${at}/close`, { closed_on: "2026-11-28", confirm: "yes" });
    pages.push(["closed site", (await v.get(at)).body], ["closed again", (await v.post(`${at}/close`, { closed_on: "2026-11-28", confirm: "yes" })).body]);
    expect(pages.flatMap(([name, body]) => wordProblems(pageText(body)).map((p) => `${name}: ${p}`))).toEqual([]);
  }, 60_000);
});

describe("the rules every form keeps", () => {
  it("escapes a site named <script> on the edit, close, confirm and rain pages", async () => {
    const v = await visitor();
    const at = await addSite(v, EVIL);
    const pages = [await v.get(`${at}/edit`), await v.get(`${at}/rain-events/new`), await v.get(`${at}/close`), await v.post(`${at}/close`, { closed_on: "2026-11-28" })];
    for (const res of pages) {
      expect(res.statusCode).toBe(200);
      expect(res.body).not.toContain(EVIL);
      expect(res.body).toContain(ESCAPED);
    }
  }, 60_000);

  it("refuses a form without its CSRF token, and another account's site is not found on every new route", async () => {
    const owner = await visitor();
    const at = await addSite(owner, "Walled off");
    await owner.get(`${at}/rain-events/new`);
    const forged = await owner.post(`${at}/rain-events`, { occurred_on: "2026-11-27", inches: "1", measured_by: "gauge" }, { csrf: false });
    expect(forged.statusCode).toBe(403);
    expect((await owner.get(at)).body).toContain("No rain entered yet.");
    const other = await visitor(Plan.SCALE);
    for (const path of ["/edit", "/close", "/rain-events/new"]) {
      const res = await other.get(at + path);
      expect(res.statusCode, path).toBe(404);
      expect(res.body).not.toContain("Walled off");
    }
    await other.get("/app");
    for (const [path, fields] of [["", { name: "Taken", ...MA_SITE }], ["/close", { closed_on: "2026-11-28", confirm: "yes" }], ["/rain-events", { occurred_on: "2026-11-27", inches: "1", measured_by: "gauge" }]] as const) {
      expect((await other.post(at + path, fields)).statusCode, path).toBe(404);
    }
    expect((await owner.get(at)).body).toContain("<h1>Walled off</h1>");
  }, 60_000);

  it("in a cancelled plan's workspace shows no edit, close or rain buttons and refuses their pages and posts", async () => {
    const { sessionId } = await t.clients.entitlement.startCheckout({ planId: "stormwater_pro", successUrl: "http://localhost/s?session_id={CHECKOUT_SESSION_ID}", cancelUrl: "http://localhost/c" });
    const { subscriptionId } = await t.clients.entitlement.completeLocalCheckout({ sessionId });
    const live = (await t.clients.entitlement.revealCheckout({ sessionId })).keys.find((k) => k.kind === KeyKind.LIVE)!.secret;
    const before = new AppVisitor(t.app);
    await before.signIn(live);
    const at = await addSite(before, "Cancelled plan's site");
    await t.clients.entitlement.setLocalSubscription({ subscriptionId, status: SubscriptionStatus.CANCELED });
    const v = new AppVisitor(t.app);
    expect((await v.signIn(live)).statusCode).toBe(303);
    const page = (await v.get(at)).body;
    expect(page).toContain("your sites are read-only");
    for (const gone of ["/edit", "/close", "/rain-events/new"]) expect(page).not.toContain(`${at}${gone}`);
    for (const path of ["/edit", "/close", "/rain-events/new"]) expect((await v.get(at + path)).statusCode, path).toBe(403);
    for (const [path, fields] of [["", { name: "Changed", ...MA_SITE }], ["/close", { closed_on: "2026-11-28", confirm: "yes" }], ["/rain-events", { occurred_on: "2026-11-27", inches: "1", measured_by: "gauge" }]] as const) {
      const res = await v.post(at + path, fields);
      expect(res.statusCode, path).toBe(403);
      expect(res.body).toContain("Your plan has been cancelled");
    }
    expect((await v.get(at)).body).toContain("No rain entered yet.");
  }, 60_000);
});
