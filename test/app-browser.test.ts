// The app in Debian's chromium (headless, through puppeteer-core), at a phone's width (390 px)
// and a desktop's (1280 px): sign in, add a site, make and download the plan, choose how often to
// inspect and enter rain, edit the site, record and sign an inspection, try to change the signed
// one (refused), amend it, close the corrective action, export, register a webhook endpoint, and
// close the site. Every page is checked with axe-core (no serious or critical violation) and kept as a
// screenshot under test-output/app/.
import { mkdirSync, writeFileSync } from "node:fs";
import axeCore from "axe-core";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { Confidence, FactChangeGroupSchema, FactChangeKind, FactChangesSchema, FactStateSchema } from "@permits/proto/common/v1/common";
import { KeyKind, Plan } from "@permits/proto/entitlement/v1/entitlement";
import { startEmbedded, type Embedded } from "./support/embedded.js";
import { CHROMIUM_PATH as CHROMIUM } from "./support/prerequisites.js";
import { PNG } from "./support/app-browser.js";

const OUT = path.resolve(import.meta.dirname, "../test-output/app");
const AXE = axeCore.source;
const PHOTO = path.join(os.tmpdir(), `app-browser-${process.pid}.png`);

let gw: Embedded;
let base: string;
let browser: Browser;

beforeAll(async () => {
  gw = await startEmbedded();
  await gw.app.listen({ host: "127.0.0.1", port: 0 });
  base = `http://127.0.0.1:${(gw.app.server.address() as AddressInfo).port}`;
  browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
  mkdirSync(OUT, { recursive: true });
  writeFileSync(PHOTO, PNG);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await gw?.close();
});

/** axe-core's serious and critical violations of the page, as "rule: target" lines. */
async function accessibilityProblems(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: AXE });
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: (o: object) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe;
    return (await axe.run({ resultTypes: ["violations"] })).violations;
  });
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

async function check(page: Page, width: number, name: string): Promise<void> {
  expect(await accessibilityProblems(page), `${name} at ${width} px`).toEqual([]);
  // Nothing wider than the screen: the page reads without scrolling sideways.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow, `${name} at ${width} px scrolls sideways`).toBeLessThanOrEqual(0);
  await page.screenshot({ path: path.join(OUT, `${width}-${name}.png`), fullPage: true });
}

async function submit(page: Page, selector: string): Promise<void> {
  await Promise.all([page.waitForNavigation(), page.click(selector)]);
}

/** A link's answer, fetched by the page itself (its cookies): status, type and first bytes. */
async function download(page: Page, href: string) {
  return page.evaluate(async (u) => {
    const res = await fetch(u);
    const bytes = new Uint8Array(await res.arrayBuffer());
    return { status: res.status, type: res.headers.get("content-type"), disposition: res.headers.get("content-disposition"), head: String.fromCharCode(...bytes.slice(0, 5)), size: bytes.length };
  }, href);
}

describe("the app in chromium", () => {
  for (const width of [390, 1280]) {
    it(`works end to end at ${width} px`, async () => {
      const key = (await gw.clients.entitlement.issueKey({ kind: KeyKind.LIVE, plan: Plan.PRO, label: `browser ${width}` })).secret;
      // A context of its own: the other width's session cookie is not shared.
      const context = await browser.createBrowserContext();
      const page = await context.newPage();
      await page.setViewport({ width, height: 844 });
      try {
        await page.goto(`${base}/`);
        await check(page, width, "01-landing");
        await page.goto(`${base}/app`);
        await check(page, width, "02-sign-in");
        await page.type("#api_key", key);
        await submit(page, "form[action='/app/session'] button");
        expect(await page.$eval("h1", (h) => h.textContent)).toBe("Your sites");

        await submit(page, "a[href='/app/sites/new']");
        await check(page, width, "03-new-site");
        await page.type("#name", "Maple Street, phase 2");
        await page.type("#address", "400 Maple Street, Springfield");
        await page.type("#operator_name", "Acme Earthworks");
        await page.type("#state", "MA");
        await page.select("#activity", "construction");
        await page.type("#acres", "4.5");
        await page.select("#dischargesToImpairedWater", "no");
        await submit(page, "form[action='/app/sites'] button");
        const siteUrl = new URL(page.url()).pathname;
        expect(siteUrl).toMatch(/^\/app\/sites\/site_\w+$/);
        expect(await page.$eval("h1", (h) => h.textContent)).toBe("Maple Street, phase 2");

        await submit(page, `form[action='${siteUrl}/plans'] button`);
        await check(page, width, "04-site");
        const docx = await download(page, `${siteUrl}/plans/1.docx`);
        expect([docx.status, docx.type, docx.head.slice(0, 2)]).toEqual([200, "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "PK"]);
        expect(docx.disposition).toBe('attachment; filename="maple-street-phase-2-swppp-v1.docx"');
        const pdf = await download(page, `${siteUrl}/plans/1.pdf`);
        expect([pdf.status, pdf.type, pdf.head]).toEqual([200, "application/pdf", "%PDF-"]);

        // The 14-day frequency, under which rain of the permit's amount calls for an inspection; then the rain.
        await page.click("input[value='inspection.frequency.option2']");
        await submit(page, `form[action='${siteUrl}/frequency'] button`);
        await submit(page, `a[href='${siteUrl}/rain-events/new']`);
        await check(page, width, "12-rain-form");
        await page.type("#inches", "0.3");
        await page.type("#measured_by", "Rain gauge on site");
        await submit(page, `form[action='${siteUrl}/rain-events'] button`);
        expect(await page.$eval("#rain + p", (p) => p.textContent)).toMatch(/^Rain of 0\.25 inches or more calls for an extra inspection within 24 hours/);
        expect(await page.$eval("#schedule", (h) => h.parentElement!.textContent)).toMatch(/Inspection after 0\.3 in\. of rain on (\d{4}-\d{2}-\d{2}): \d{4}-\d{2}-\d{2}\. 0\.3 inches of rain/);

        // Editing: a cleared field is refused beside it; a new acreage is answered again.
        await submit(page, `a[href='${siteUrl}/edit']`);
        await check(page, width, "13-edit-site");
        await page.$eval("#acres", (i) => ((i as HTMLInputElement).value = ""));
        await submit(page, `form[action='${siteUrl}'] button[type='submit']`);
        expect(await page.$eval("#acres-error", (e) => e.textContent)).not.toBe("");
        await check(page, width, "14-edit-errors");
        await page.type("#acres", "6");
        await submit(page, `form[action='${siteUrl}'] button[type='submit']`);
        expect(new URL(page.url()).pathname).toBe(siteUrl);
        expect(await page.content()).toContain("6 acres disturbed");

        await submit(page, `a[href='${siteUrl}/inspections/new']`);
        await page.type("#inspector_name", "Dana Ortiz");
        await page.type("#inspector_title", "Site superintendent");
        await page.type("#weather", "Clear, 50 F");
        await page.type("#finding_1_location", "North silt fence");
        await page.type("#finding_1_description", "Fence down over 20 feet");
        await page.click("input[name='finding_1_corrective']");
        await page.select("#finding_1_due_rule", "corrective.minor");
        await (await page.$("#photos"))!.uploadFile(PHOTO);
        await check(page, width, "05-new-inspection");
        await submit(page, `form[action='${siteUrl}/inspections'] button[type='submit']`);
        const reportUrl = new URL(page.url()).pathname;
        expect(await page.content()).toContain("draft, not signed yet");

        await page.click("input[name='agree']");
        await page.type("#signed_by", "Dana Ortiz");
        await submit(page, `form[action='${reportUrl}/sign'] button`);
        expect(await page.content()).toContain("signed by Dana Ortiz");
        // The heading's date stays on one line (a hyphen is a place a line may break).
        expect(await page.$eval("h1 .nowrap", (e) => e.getClientRects().length)).toBe(1);
        await check(page, width, "06-signed-inspection");

        // Changing the signed report (a hand-made post to the draft's form address) is refused.
        const token = await page.$eval("input[name='_csrf']", (i) => (i as HTMLInputElement).value);
        await Promise.all([
          page.waitForNavigation(),
          page.evaluate((action, csrf) => {
            const f = document.createElement("form");
            f.method = "post";
            f.action = action;
            for (const [k, v] of [["_csrf", csrf], ["inspected_on", "2026-01-01"], ["weather", "rewritten"]]) {
              const i = document.createElement("input");
              i.name = k;
              i.value = v;
              f.append(i);
            }
            document.body.append(f);
            f.submit();
          }, reportUrl, token),
        ]);
        expect(await page.$eval("h1", (h) => h.textContent)).toBe("Cannot be changed");
        await check(page, width, "07-change-refused");

        await page.goto(`${base}${reportUrl}`);
        // The amendment form waits behind its summary: closed until asked for.
        expect(await page.$eval("#reason", (e) => e.checkVisibility())).toBe(false);
        await page.click("summary::-p-text(Amend this report)");
        await page.type("#reason", "The weather was recorded wrong");
        await page.$eval("#weather", (i) => ((i as HTMLInputElement).value = "Light rain, 48 F"));
        await (await page.$("#photos"))!.uploadFile(PHOTO);
        await submit(page, `form[action='${reportUrl}/amendments'] button`);
        expect(await page.content()).toContain("Reason: The weather was recorded wrong");
        expect(await page.$$eval("main li a[href*='/photos/'] + .muted", (els) => els.map((e) => e.textContent))).toEqual(["added in version 1", "added in version 2"]);
        await check(page, width, "08-amended");

        // A rules change the site's answer cites (the gateway's rules check would hand it over): the page then
        // carries the attention notice and the plan's out-of-date line beside the rain, edit and close controls.
        const loaded = (await gw.app.inject({ method: "GET", url: "/api/v1/coverage" })).json().data.stormwater.datasetVersion as string;
        const days = (n: number) => create(ValueSchema, { kind: { case: "numberValue", value: n } });
        const state = (n: number) => create(FactStateSchema, { value: days(n), confidence: Confidence.UNVERIFIED, sourceCitation: "Layout check: not a permit fact", sourceUrl: "https://example.com/" });
        const next = `${loaded}-layout-check`; // a version after the loaded one, as if the data were reloaded
        const fact = { fact: "jurisdictions/MA/layoutCheck/everyDays", change: FactChangeKind.CHANGED, datasetVersion: next, before: state(7), after: state(14) };
        const changes = create(FactChangesSchema, { dataset: "stormwater", since: loaded, currentVersion: next, changeCount: 1, groups: [create(FactChangeGroupSchema, { kind: "jurisdiction", id: "MA", changes: [fact] })] });
        expect((await gw.clients.sites.markRulesChanged({ datasetVersion: next, changes: [changes] })).marked).toBe(1);

        await page.goto(`${base}${siteUrl}`);
        expect(await page.content()).toContain("The rules for this site changed on");
        // The deadline chosen for the finding (the next business day), with its citation.
        expect(await page.$eval("li[id^='corrective-'] .muted", (e) => e.textContent)).toBe("(from the permit: Routine maintenance, CGP Part 2.1.4.b (EPA routine maintenance / corrective action guidelines), Unverified)");
        await page.click("li[id^='corrective-'] details summary");
        await page.type("textarea[name='note']", "Fence reset and staked");
        await submit(page, "form[action*='/corrective-actions/'] button");
        expect(await page.content()).toContain("None open.");
        await check(page, width, "09-site-after");

        for (const [file, type, head] of [["records.csv", "text/csv; charset=utf-8", "recor"], ["records.pdf", "application/pdf", "%PDF-"], ["records.zip", "application/zip", "PK\u0003\u0004"]] as const) {
          const got = await download(page, `${siteUrl}/${file}`);
          expect([file, got.status, got.type, got.head.slice(0, head.length)]).toEqual([file, 200, type, head]);
        }
        await page.goto(`${base}/app`);
        await check(page, width, "10-dashboard");

        // Webhooks: an endpoint at a public address (nothing is sent until an event happens).
        await submit(page, "a[href='/app/settings/webhooks']");
        await page.type("#url", "https://93.184.215.14/hooks/permits");
        await page.click("form[action='/app/settings/webhooks'] input[name='event_inspection.overdue']");
        await submit(page, "form[action='/app/settings/webhooks'] button[type='submit']");
        expect(await page.$eval(".notice code", (c) => c.textContent)).toMatch(/^whsec_/);
        await check(page, width, "11-webhooks");

        // Closing: the date, then what it means (until when the records are kept, and why), then read-only.
        await page.goto(`${base}${siteUrl}/close`);
        await check(page, width, "15-close");
        await submit(page, `form[action='${siteUrl}/close'] button`);
        expect(await page.content()).toMatch(/The records will be kept until \d{4}-\d{2}-\d{2}\./);
        await check(page, width, "16-close-confirm");
        await submit(page, `form[action='${siteUrl}/close'] button`);
        expect(new URL(page.url()).pathname).toBe(siteUrl);
        expect(await page.content()).toContain("A closed site cannot change");
        expect(await page.$$(`a[href='${siteUrl}/edit'], a[href='${siteUrl}/inspections/new'], form[action='${siteUrl}/plans']`)).toHaveLength(0);
        await check(page, width, "17-site-closed");
      } finally {
        await context.close();
      }
    }, 180_000);
  }
});
