// The app's inspection records through inject(): each field of the form kept as a field of the
// report and shown on every page and export; a report written before those fields read as it was;
// photos added by an amendment, kept with its version; and the corrective-action deadline chosen
// per finding from the permit's rules, or entered by the operator where the permit holds none.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { strFromU8, unzipSync } from "fflate";
import { extractText, getDocumentProxy } from "unpdf";
import { KeyKind, Plan } from "@permits/proto/entitlement/v1/entitlement";
import { DueDateSource, InspectionType } from "@permits/proto/sites/v1/sites";
import { ManualClock, startEmbedded, type Embedded } from "./support/embedded.js";
import { AppVisitor, PNG } from "./support/app-browser.js";

const SITE = { state: "MA", activity: "construction", acres: "3", address: "12 Mill Road, Lowell", operator_name: "Acme Earthworks" };
const FORM = {
  inspected_on: "2026-11-27",
  start_time: "08:30",
  end_time: "09:15",
  inspector_name: "Dana Ortiz",
  inspector_title: "Site superintendent",
  qualification: "CPESC",
  type: "storm_event",
  rainfall_inches: "0.6",
  rainfall_source: "rain gauge on site",
  weather: "light rain",
  phase: "grading",
  areas_inspected: "whole site, both outfalls",
  controls: "north silt fence sagging",
  stabilization: "east slope seeded",
  discharges: "turbid water at outfall 2",
  unsafe_areas: "",
  notes: "crew briefed",
};
let t: Embedded;
let key: string;
let otherKey: string;

async function signedIn(as = key): Promise<AppVisitor> {
  const v = new AppVisitor(t.app);
  expect((await v.signIn(as)).statusCode).toBe(303);
  await v.get("/app");
  return v;
}

async function newSite(v: AppVisitor, name: string, state = "MA"): Promise<string> {
  await v.get("/app/sites/new");
  const res = await v.post("/app/sites", { name, ...SITE, state });
  expect(res.statusCode, res.body).toBe(303);
  return res.headers.location as string;
}

async function record(v: AppVisitor, at: string, fields: Record<string, string>, photos = [{ field: "photos", filename: "fence.png", type: "image/png", bytes: PNG }]) {
  await v.get(`${at}/inspections/new`);
  return v.postMultipart(`${at}/inspections`, fields, photos);
}

async function signed(v: AppVisitor, report: string): Promise<void> {
  await v.get(report);
  expect((await v.post(`${report}/sign`, { signed_by: "Dana Ortiz", agree: "true" })).statusCode).toBe(303);
  await v.get(report);
}

const pdfText = async (bytes: Buffer) => ((await extractText(await getDocumentProxy(new Uint8Array(bytes)), { mergePages: true })).text as string).replace(/\s+/g, " ");
const row = (label: string, value: string) => `<tr><th scope="row">${label}</th><td>${value}</td></tr>`;

beforeAll(async () => {
  t = await startEmbedded({}, { clock: new ManualClock(Date.UTC(2026, 10, 28, 12)) });
  key = (await t.clients.entitlement.issueKey({ kind: KeyKind.LIVE, plan: Plan.PRO, label: "records test" })).secret;
  otherKey = (await t.clients.entitlement.issueKey({ kind: KeyKind.LIVE, plan: Plan.SCALE, label: "another account" })).secret;
}, 120_000);

afterAll(async () => {
  await t?.close();
});

describe("the report's fields", () => {
  it("keeps each field of the form as a field of the report, and shows it on the page, the amendment form and every export", async () => {
    const v = await signedIn();
    const at = await newSite(v, "Fields");
    const made = await record(v, at, FORM, []);
    expect(made.statusCode, made.body).toBe(303);
    const report = made.headers.location as string;
    const [siteId, inspectionId] = [at.split("/").pop()!, report.split("/").pop()!];
    const { accountId } = await t.clients.entitlement.resolveAccount({ apiKey: key });
    const stored = (await t.clients.sites.getInspection({ accountId, actor: "test", siteId, inspectionId })).inspection!.report!;
    expect([stored.inspectorQualification, stored.type, stored.stormTriggered, stored.rainfallInches, stored.areasInspected, stored.controlsNeedingRepair, stored.stabilization, stored.dischargesSeen, stored.summary]).toEqual(["CPESC", InspectionType.STORM_EVENT, true, 0.6, "whole site, both outfalls", "north silt fence sagging", "east slope seeded", "turbid water at outfall 2", "crew briefed"]);

    await signed(v, report);
    const page = (await v.get(report)).body;
    for (const [label, value] of [["Inspector&#39;s qualification", "CPESC"], ["Type", "After a storm event"], ["Rain since the last inspection (inches)", "0.6"], ["How the rain was measured", "rain gauge on site"], ["Areas inspected", "whole site, both outfalls"], ["Controls needing maintenance or repair", "north silt fence sagging"], ["Stabilization", "east slope seeded"], ["Discharges seen", "turbid water at outfall 2"], ["Other notes", "crew briefed"]]) expect(page).toContain(row(label, value));
    // The amendment form starts from the signed version's fields.
    expect(page).toMatch(/<select id="type" name="type"><option value="routine">Routine<\/option><option value="storm_event" selected>/);
    expect(page).toContain('<textarea id="discharges" name="discharges" maxlength="2000">turbid water at outfall 2</textarea>');
    expect(page).toContain('id="qualification" name="qualification" type="text" value="CPESC"');

    const csv = (await v.get(`${at}/records.csv`)).body.split("\r\n");
    expect(csv[1]).toMatch(/^inspection,[\w-]+,1,signed,2026-11-27,08:30,09:15,Dana Ortiz,Site superintendent,CPESC,storm_event,yes,0\.6,rain gauge on site,light rain,grading,"whole site, both outfalls",north silt fence sagging,east slope seeded,turbid water at outfall 2,,,crew briefed,,,Dana Ortiz,2026-11-28T12:00:00\.000Z,[0-9a-f]{64}$/);
    const pdf = await pdfText((await v.get(`${at}/records.pdf`)).rawPayload);
    for (const text of ["Inspector's qualification: CPESC", "Type: After a storm event", "Rain since the last inspection (inches): 0.6", "Discharges seen: turbid water at outfall 2", "Other notes: crew briefed"]) expect(pdf).toContain(text);
    const zip = unzipSync(new Uint8Array((await v.get(`${at}/records.zip`)).rawPayload));
    expect(JSON.parse(strFromU8(zip[`inspections/${inspectionId}-v1.json`])).report).toMatchObject({ inspectorQualification: "CPESC", type: "INSPECTION_TYPE_STORM_EVENT", areasInspected: "whole site, both outfalls", dischargesSeen: "turbid water at outfall 2" });
  }, 60_000);

  it("shows a report written with labelled summary lines exactly as written, and starts its amendment from them", async () => {
    const v = await signedIn();
    const at = await newSite(v, "Written the old way");
    const siteId = at.split("/").pop()!;
    const { accountId } = await t.clients.entitlement.resolveAccount({ apiKey: key });
    const summary = "Inspector's qualification: CPESC\nAreas inspected: whole site\nControls needing maintenance or repair: north fence\nOther notes: <b>gate</b> left open";
    const old = (await t.clients.sites.createInspectionDraft({ accountId, actor: "test", siteId, report: { inspectedOn: "2026-11-20", inspector: { name: "Dana Ortiz" }, stormTriggered: false, summary } })).inspection!;
    const page = (await v.get(`${at}/inspections/${old.id}`)).body;
    expect(page).toContain(row("Type", "Routine"));
    for (const line of ["Inspector&#39;s qualification: CPESC", "Areas inspected: whole site", "Controls needing maintenance or repair: north fence", "Other notes: &lt;b&gt;gate&lt;/b&gt; left open"]) expect(page).toContain(`<tr><td colspan="2">${line}</td></tr>`);
    expect(page).toContain('id="areas_inspected" name="areas_inspected" maxlength="2000">whole site</textarea>');
    expect(page).toContain('id="notes" name="notes" maxlength="2000">&lt;b&gt;gate&lt;/b&gt; left open</textarea>');
    const csv = (await v.get(`${at}/records.csv`)).body;
    expect(csv).toContain(",routine,no,,,,,,,,,,,Inspector's qualification: CPESC | Areas inspected: whole site | Controls needing maintenance or repair: north fence | Other notes: <b>gate</b> left open,");
    const stored = (await t.clients.sites.getInspection({ accountId, actor: "test", siteId, inspectionId: old.id })).inspection!.report!;
    expect([stored.summary, stored.type]).toEqual([summary, InspectionType.UNSPECIFIED]);
  }, 60_000);
});

describe("a change sent from a page left open while the site was closed", () => {
  it("is refused with the closed site's notice (since when, records kept until when), not the advice to amend", async () => {
    const v = await signedIn();
    const at = await newSite(v, "Closed behind a stale page");
    const draft = (await record(v, at, FORM, [])).headers.location as string;
    const done = (await record(v, at, FORM, [])).headers.location as string;
    await signed(v, done);
    await v.get(draft);
    expect((await v.post(`${at}/close`, { closed_on: "2026-11-28", confirm: "yes" })).statusCode).toBe(303);
    const refused = {
      sign: await v.post(`${draft}/sign`, { signed_by: "Dana Ortiz", agree: "true" }),
      draft: await v.postMultipart(draft, { ...FORM, notes: "changed" }, []),
      amend: await v.postMultipart(`${done}/amendments`, { ...FORM, reason: "typo" }, []),
    };
    for (const [what, res] of Object.entries(refused)) {
      expect(res.statusCode, what).toBe(409);
      expect(res.body, what).toContain("<strong>Closed on 2026-11-28</strong>");
      expect(res.body, what).toContain("<strong>Records kept until 2029-11-28.</strong>");
      expect(res.body, what).toContain("nothing can be added, edited or signed");
      expect(res.body, what).not.toContain("amend it");
    }
    const kept = (await v.get(draft)).body;
    expect(kept).toContain("crew briefed");
    expect(kept).not.toContain("changed");
  }, 60_000);
});

describe("photos on an amendment", () => {
  it("adds photos with the amendment's version; the signed original keeps its own; refusals beside the field save nothing", async () => {
    const v = await signedIn();
    const at = await newSite(v, "Amended photos");
    const report = (await record(v, at, { inspected_on: "2026-11-27", type: "routine", inspector_name: "Dana Ortiz" })).headers.location as string;
    await signed(v, report);
    const amend = (fields: Record<string, string>, photos: { field: string; filename: string; type: string; bytes: Buffer }[]) => v.postMultipart(`${report}/amendments`, { inspected_on: "2026-11-27", type: "routine", inspector_name: "Dana Ortiz", ...fields }, photos);

    const notImage = await amend({ reason: "repair photo" }, [{ field: "photos", filename: "notes.png", type: "image/png", bytes: Buffer.from("GIF89a not a png") }]);
    expect(notImage.statusCode).toBe(400);
    expect(notImage.body).toContain('<span class="field-error" id="photos-error">&quot;notes.png&quot; is not a JPEG, PNG, WebP or HEIC photo, so nothing was saved. Choose photos only.</span>');
    expect(notImage.body).toContain('<textarea id="reason" name="reason" required maxlength="2000">repair photo</textarea>');
    const big = await amend({ reason: "repair photo" }, [{ field: "photos", filename: "huge.png", type: "image/png", bytes: Buffer.concat([PNG, Buffer.alloc(10 * 1024 * 1024)]) }]);
    expect(big.statusCode).toBe(400);
    expect(big.body).toContain('<span class="field-error" id="photos-error">&quot;huge.png&quot; is larger than 10 MB, so nothing was saved.');
    const tooMany = await amend({ reason: "repair photo" }, Array.from({ length: 20 }, (_, n) => ({ field: "photos", filename: `p${n}.png`, type: "image/png", bytes: PNG })));
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.body).toContain("A report keeps at most 20 photos over all its versions; it has 1, and 20 more were sent. Nothing was saved: choose at most 19.");
    const noReason = await amend({ reason: " " }, [{ field: "photos", filename: "repair.png", type: "image/png", bytes: PNG }]);
    expect(noReason.statusCode).toBe(400);
    expect(noReason.body).toContain('<span class="field-error" id="reason-error">Say why the report is amended.</span>');
    expect(noReason.body).toContain("<details open><summary>Amend this report</summary>"); // open, so the errors show
    expect((await v.get(report)).body).not.toContain("Version 2");

    const ok = await amend({ reason: "repair photo" }, [{ field: "photos", filename: "repair.png", type: "image/png", bytes: PNG }]);
    expect(ok.statusCode, ok.body).toBe(303);
    const latest = (await v.get(report)).body;
    expect(latest).toContain("<h2>Photos (2)</h2>");
    expect(latest).toMatch(/>fence\.png<\/a> <span class="muted">added in version 1<\/span>.*>repair\.png<\/a> <span class="muted">added in version 2<\/span>/s);
    expect(latest).toContain(`Version 1: signed by Dana Ortiz on 2026-11-28; 1 photo(s). <a href="${report}?version=1">Open version 1</a>`);
    const original = (await v.get(`${report}?version=1`)).body;
    expect(original).toContain("<h2>Photos (1)</h2>");
    expect(original).not.toContain("repair.png");
    expect(original).toContain("A later version amends this one.");
    expect(original).not.toContain("Amend this report");
    const photo = /href="(\/app\/sites\/[\w-]+\/photos\/[\w-]+)">repair\.png/.exec(latest)![1];
    const image = await v.get(photo);
    expect([image.statusCode, image.headers["content-type"], image.rawPayload.equals(PNG)]).toEqual([200, "image/png", true]);
    // A multipart body cut short is the sender's malformed form, never a 500.
    const cut = await t.app.inject({ method: "POST", url: `${report}/amendments`, payload: '{"reason":"x"}', headers: { cookie: [...v.cookies].map(([k, c]) => `${k}=${c}`).join("; "), "content-type": "multipart/form-data; boundary=x" } });
    expect([cut.statusCode, cut.body.includes("The form was not sent as a web form, so nothing was saved.")]).toEqual([400, true]);
    const other = await signedIn(otherKey);
    for (const url of [photo, report, `${report}?version=1`]) expect((await other.get(url)).statusCode, url).toBe(404);
    expect((await v.get(`${report}?version=3`)).statusCode).toBe(404);
    expect((await v.get(at)).body).toContain(`<a href="${report}">Inspection of <span class="nowrap">2026-11-27</span></a> (routine, 2 photo(s)): amendment (version 2), not signed yet`);
  }, 60_000);

  it("takes photos with a change of the draft too, refusing a non-image beside the field", async () => {
    const v = await signedIn();
    const at = await newSite(v, "Draft photos");
    const report = (await record(v, at, { inspected_on: "2026-11-27", type: "routine" }, [])).headers.location as string;
    await v.get(report);
    const fields = { inspected_on: "2026-11-27", type: "routine", weather: "fog" };
    const bad = await v.postMultipart(report, fields, [{ field: "photos", filename: "a.txt", type: "text/plain", bytes: Buffer.from("not a photo") }]);
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('id="photos-error">&quot;a.txt&quot; is not a JPEG, PNG, WebP or HEIC photo, so nothing was saved.');
    expect(bad.body).toContain('id="weather" name="weather" type="text" value="fog"');
    expect((await v.get(report)).body).not.toContain(row("Weather", "fog"));
    expect((await v.postMultipart(report, fields, [{ field: "photos", filename: "gate.png", type: "image/png", bytes: PNG }])).statusCode).toBe(303);
    const page = (await v.get(report)).body;
    expect(page).toContain(row("Weather", "fog"));
    expect(page).toMatch(/<h2>Photos \(1\)<\/h2><ul><li><a href="[^"]+">gate\.png<\/a> <span class="muted">added in version 1<\/span>/);
  }, 60_000);
});

describe("the deadline of each finding's corrective action", () => {
  const finding = (n: number, over: Record<string, string>) => ({ [`finding_${n}_location`]: `place ${n}`, [`finding_${n}_description`]: `problem ${n}`, [`finding_${n}_corrective`]: "true", ...over });

  it("offers the permit's rules with their citations, picks the earliest, and keeps the one chosen on each action", async () => {
    const v = await signedIn();
    const at = await newSite(v, "Chosen deadlines");
    const form = (await v.get(`${at}/inspections/new`)).body;
    // Found on Saturday 28 November 2026 (today): the record within 24 hours is the earliest.
    expect(form).toContain('<select id="finding_1_due_rule" name="finding_1_due_rule"><option value="" selected>The earliest for the inspection&#39;s date (for 2026-11-28: Corrective action record, by 2026-11-29)</option>');
    expect(form).toContain('<option value="corrective.documentation">Corrective action record: by 2026-11-29 (2022 CGP Part 5.4 (number from earlier CGPs); Unverified)</option>');
    expect(form).toContain('<option value="corrective.minor">Routine maintenance: by 2026-11-30 (CGP Part 2.1.4.b (EPA routine maintenance / corrective action guidelines); Unverified)</option>');
    expect(form).toContain('<option value="corrective.major">Corrective action: no date counted (CGP Parts 5.1 and 5.2 (deadline not confirmed); Unverified)</option>');

    // Found on Friday 27 November: finding 1 left to the earliest, 2 the next business day, 3 a rule with no date (the operator's date).
    const fields = { inspected_on: "2026-11-27", type: "routine", ...finding(1, {}), ...finding(2, { finding_2_due_rule: "corrective.minor" }), ...finding(3, { finding_3_due_rule: "corrective.major" }) };
    const missing = await record(v, at, fields, []);
    expect(missing.statusCode).toBe(400);
    expect(missing.body).toContain('<span class="field-error" id="finding_3_due_on-error">The deadline chosen gives no date this service can count: enter the date your permit sets, or choose another deadline.</span>');
    const early = await record(v, at, { ...fields, finding_3_due_on: "2026-11-20" }, []);
    expect(early.body).toContain("The due date cannot be before the inspection (2026-11-27).");
    const unknown = await record(v, at, { ...fields, finding_1_due_rule: "corrective.invented", finding_3_due_on: "2026-12-04" }, []);
    expect(unknown.body).toContain('id="finding_1_due_rule-error">Choose one of the deadlines listed.');
    expect((await v.get(at)).body).toContain("No inspections recorded yet.");

    expect((await record(v, at, { ...fields, finding_3_due_on: "2026-12-04" }, [])).statusCode).toBe(303);
    const { accountId } = await t.clients.entitlement.resolveAccount({ apiKey: key });
    const { correctiveActions } = await t.clients.sites.listCorrectiveActions({ accountId, actor: "test", siteId: at.split("/").pop()! });
    expect(correctiveActions.map((c) => [c.findingId, c.dueOn, c.dueSource, c.dueRule?.requirementId, c.dueRule?.confidence])).toEqual([
      ["f1", "2026-11-28", DueDateSource.PERMIT_RULE, "corrective.documentation", "unverified"],
      ["f2", "2026-11-30", DueDateSource.PERMIT_RULE, "corrective.minor", "unverified"],
      ["f3", "2026-12-04", DueDateSource.OPERATOR, "corrective.major", "unverified"],
    ]);
    const site = (await v.get(at)).body;
    expect(site).toContain('due <span>2026-11-30</span> <span class="muted">(from the permit: Routine maintenance, CGP Part 2.1.4.b (EPA routine maintenance / corrective action guidelines), Unverified)</span>');
    expect(site).toContain('due <span>2026-12-04</span> <span class="muted">(entered by the operator (deadline chosen: Corrective action, CGP Parts 5.1 and 5.2 (deadline not confirmed), Unverified))</span>');
    const csv = (await v.get(`${at}/records.csv`)).body;
    expect(csv).toMatch(/,f2,place 2: problem 2,2026-11-27,2026-11-30,permit rule,Routine maintenance,CGP Part 2\.1\.4\.b \(EPA routine maintenance \/ corrective action guidelines\),Unverified,open,,\r\n/);
    expect(csv).toMatch(/,f3,place 3: problem 3,2026-11-27,2026-12-04,entered by the operator,Corrective action,CGP Parts 5\.1 and 5\.2 \(deadline not confirmed\),Unverified,open,,\r\n/);
  }, 60_000);

  it("where the permit holds no corrective-action rule, says so naming the agency and keeps the operator's date as theirs", async () => {
    const v = await signedIn();
    const at = await newSite(v, "Permit not read", "IL");
    const form = (await v.get(`${at}/inspections/new`)).body;
    expect(form).toContain("This service did not find the permit&#39;s rule for corrective-action deadlines");
    expect(form).toContain("Illinois Environmental Protection Agency");
    expect(form).not.toContain('name="finding_1_due_rule"');
    const fields = { inspected_on: "2026-11-27", type: "routine", ...finding(1, {}) };
    const missing = await record(v, at, fields, []);
    expect(missing.statusCode).toBe(400);
    expect(missing.body).toContain('id="finding_1_due_on-error">This service holds no corrective-action deadline from your permit: enter the date your permit sets.');
    expect((await record(v, at, { ...fields, finding_1_due_on: "2026-12-02" }, [])).statusCode).toBe(303);
    expect((await v.get(at)).body).toContain('due <span>2026-12-02</span> <span class="muted">(entered by the operator)</span>');
  }, 60_000);
});
