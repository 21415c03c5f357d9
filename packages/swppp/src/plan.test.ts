// The plan document, read back: the DOCX's XML (unzipped) and the PDF's text (unpdf), on real
// answers: the federal permit (MA), a state permit with data (TX), a permit not read (IL) and a
// state whose preparer credential is gated (GA).
import { createHash } from "node:crypto";
import { strFromU8, unzipSync } from "fflate";
import { extractText, getDocumentProxy } from "unpdf";
import { beforeAll, describe, expect, it } from "vitest";
import { FIXED_NOTICES } from "@permits/stormwater";
import { NOTICES, buildPlanModel, generatePlan, type PlanInput } from "./index.js";
import { answer, credentialOf } from "./testing.js";
import { wordProblems } from "../../../test/support/answer-words.js";

const SCRIPT = "<script>alert(1)</script>";
const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

function inputFor(state: string, over: Partial<PlanInput> = {}): PlanInput {
  return {
    site: { name: `Riverside lots (${state})`, address: "12 Mill Road", operator: { name: "Acme Builders", phone: "555-0100" } },
    determination: answer(state, { startDate: "2027-03-01", endDate: "2027-10-31" }),
    credential: credentialOf(state),
    version: 1,
    preparedOn: "2026-11-28",
    frequencyOption: "inspection.frequency.option1",
    ...over,
  };
}

const generate = generatePlan;

/** word/document.xml, and its text one paragraph a line. */
function docxParts(docx: Uint8Array) {
  const files = unzipSync(docx);
  const xml = strFromU8(files["word/document.xml"]);
  const entities: Record<string, string> = { "&lt;": "<", "&gt;": ">", "&quot;": '"', "&apos;": "'", "&amp;": "&" };
  const decode = (t: string) => t.replace(/&(lt|gt|quot|apos|amp);/g, (e) => entities[e]);
  const text = (x: string) => x.split("</w:p>").map((p) => [...p.matchAll(/<w:t(?: [^>]*)?>([^<]*)<\/w:t>/g)].map((m) => decode(m[1])).join("")).join("\n");
  const headers = Object.keys(files).filter((f) => /^word\/(header|footer)\d*\.xml$/.test(f)).map((f) => strFromU8(files[f]));
  return { xml, text: text(xml), headers: headers.map(text) };
}

async function pdfPages(pdf: Uint8Array): Promise<string[]> {
  const { text } = await extractText(await getDocumentProxy(pdf.slice()), { mergePages: false });
  return text.map((t) => t.replace(/\s+/g, " "));
}

// Each plan takes a fraction of a second, but the first loads docx and pdfmake (with its fonts),
// and these machines are shared: generous limits, and the load paid once before the tests.
describe("the plan document", { timeout: 60_000 }, () => {
  beforeAll(() => generate(inputFor("MA")), 120_000);

  it("carries document 1's two notices, the engine's own words", () => {
    expect([...NOTICES]).toEqual([...FIXED_NOTICES]);
  });

  it("is deterministic: the same input gives the same bytes, DOCX and PDF", async () => {
    const a = await generate(inputFor("MA"));
    const b = await generate(inputFor("MA"));
    expect(sha(b.docx)).toBe(sha(a.docx));
    expect(sha(b.pdf)).toBe(sha(a.pdf));
    const later = await generate(inputFor("MA", { preparedOn: "2026-11-29" }));
    expect(sha(later.pdf)).not.toBe(sha(a.pdf));
  });

  it("federal permit (MA): notices on the first page, values with their citation and Unverified beside an unverified value", async () => {
    const { docx, pdf, model } = await generate(inputFor("MA"));
    expect(model.draftBanner).toBeNull(); // the credential answer: an inspector rule, no preparer rule
    const d = docxParts(docx);
    const firstPage = d.xml.slice(0, d.xml.indexOf("<w:pageBreakBefore/>"));
    for (const n of NOTICES) expect(firstPage).toContain(n);
    expect(d.text).toContain("Value: 24 hours [Unverified]"); // corrective.documentation
    expect(d.text).toContain("Inspection frequency chosen: Inspection frequency, option 1: 7 calendar days [Verified]");
    expect(d.text).toContain("Source: 2022 CGP Parts 4.2 and 4.3.1 - https://www.epa.gov/npdes/2022-construction-general-permit-cgp - Verified (read in an official agency form, checked 2026-11-25)");
    expect(d.text).toContain("Dataset version: 2026-11-28");
    const pages = await pdfPages(pdf);
    for (const n of NOTICES) expect(pages[0]).toContain(n);
    const all = pages.join("\n");
    expect(all).toContain("Value: 24 hours [Unverified]");
    expect(all).toContain("Source: 2022 CGP Parts 4.2 and 4.3.1");
    expect(all).toContain("Certification statement the permit requires (copy it word for word from the permit): ____________________ (to be completed by the preparer)");
  });

  it("a state permit with data (TX): its own values, Unverified, and no federal figure", async () => {
    const { docx, pdf } = await generate(inputFor("TX"));
    const text = docxParts(docx).text;
    expect(text).toContain("Value: every 14 calendar days and after 0.5 inch of rain, or every 7 days [Unverified]");
    expect(text).toContain("Source: TXR150000 inspection schedule, as described by a City of Odessa stormwater page");
    expect(text).not.toContain("2022 CGP");
    expect((await pdfPages(pdf)).join("\n")).toContain("every 14 calendar days and after 0.5 inch of rain, or every 7 days [Unverified]");
  });

  it("a permit not read (IL): says so, names the agency, no number from another permit", async () => {
    const { docx, pdf } = await generate(inputFor("IL"));
    for (const text of [docxParts(docx).text, (await pdfPages(pdf)).join("\n")]) {
      expect(text).toContain("issued by Illinois Environmental Protection Agency) has not been read by this service.");
      expect(text).toContain("Illinois Environmental Protection Agency");
      expect(text).toContain("This service holds none of the permit's requirements for this part");
      expect(text).not.toMatch(/2022 CGP|0\.25 inch|7 calendar days|14 calendar days|24 hours/);
    }
  });

  it("a gated preparer credential (GA): every page says it is a draft for that credential", async () => {
    const { docx, pdf, model } = await generate(inputFor("GA"));
    expect(model.draftBanner).toBe("DRAFT for review and signature by a credentialed preparer as Georgia requires (GSWCC Level II certified design professional (plan preparation); GSWCC Level IA certification (person in responsible charge)). Not a compliant filed plan until that person has reviewed and signed it.");
    const d = docxParts(docx);
    expect(d.headers.some((h) => h.includes(model.draftBanner!))).toBe(true);
    const pages = await pdfPages(pdf);
    expect(pages.length).toBeGreaterThan(2);
    for (const p of pages) expect(p).toContain("DRAFT for review and signature by a credentialed preparer as Georgia requires");
  });

  it("without the credential answer, the determination's gate decides, cautiously", () => {
    expect(buildPlanModel(inputFor("GA", { credential: null })).draftBanner).toMatch(/^DRAFT for review and signature by/);
    expect(buildPlanModel(inputFor("TX", { credential: null })).draftBanner).toBeNull();
  });

  it("a site named <script>alert(1)</script> is text in both documents, never markup", async () => {
    const { docx, pdf } = await generate(inputFor("MA", { site: { name: SCRIPT } }));
    const d = docxParts(docx);
    expect(d.xml).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(d.xml).not.toContain(SCRIPT);
    expect(d.text).toContain(`Site name: ${SCRIPT}`);
    expect((await pdfPages(pdf))[0]).toContain(`Site: ${SCRIPT}`);
  });

  it("reads as plain words: no internal vocabulary, no agreement errors, over every jurisdiction", () => {
    const problems = new Set<string>();
    for (const state of ["MA", "TX", "IL", "GA", "WA", "CO", "CA", "NC", "OH", "FL", "SC", "TN", "AL", "MD", "PR"]) {
      const m = buildPlanModel(inputFor(state));
      const texts = [m.title, m.draftBanner ?? "", m.footer, ...[...m.firstPage, ...m.sections.flatMap((s) => [{ kind: "text", text: s.heading } as const, ...s.blocks])].flatMap((b) => Object.values(b).filter((v): v is string => typeof v === "string"))];
      for (const t of texts) for (const p of wordProblems(t)) problems.add(`${state}: ${p}`);
    }
    expect([...problems]).toEqual([]);
  });

  it("refuses a bad date or version with a plain message", () => {
    expect(() => buildPlanModel(inputFor("MA", { preparedOn: "today" }))).toThrow('preparedOn must be a calendar date (yyyy-mm-dd), got "today"');
    expect(() => buildPlanModel(inputFor("MA", { version: 0 }))).toThrow("the plan version must be a whole number 1 or more, got 0");
  });

  it("generates both formats with a p50 under 500 ms (CPU time: these machines' load stretches wall time)", async () => {
    const input = inputFor("MA");
    await generate(input);
    const cpu: number[] = [];
    const wall: number[] = [];
    for (let i = 0; i < 7; i++) {
      const c = process.cpuUsage();
      const t = performance.now();
      await generate(input);
      wall.push(performance.now() - t);
      const u = process.cpuUsage(c);
      cpu.push((u.user + u.system) / 1000);
    }
    const p50 = (xs: number[]) => [...xs].sort((x, y) => x - y)[3];
    console.log(`[swppp] plan (DOCX + PDF): p50 CPU ${p50(cpu).toFixed(0)} ms, p50 wall ${p50(wall).toFixed(0)} ms over 7 runs`);
    expect(p50(cpu)).toBeLessThan(500);
  });
});
