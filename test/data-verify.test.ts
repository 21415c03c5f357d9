// npm run data:verify on documents made here (a PDF written with pdf-lib, with a word broken at a
// line end and a ligature; an HTML page with typographic quotes and entities), on a copy of data/
// (DATA_DIR): a quote confirmed with its page, a changed one failing with the closest passage, a
// prior-edition fact promoted only with --apply, then listed by GET /api/v1/changes. Also the
// registry (data/sources/) against its schema and the data, and the opening of 91 FR 768.
import { createHash } from "node:crypto";
import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Ajv } from "ajv";
import { beginText, endText, moveText, PDFDocument, PDFHexString, PDFName, setFontAndSize, showText } from "pdf-lib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDataset, nwpSnapshot } from "@permits/nwp";
import { loadDataset as loadStormwater, stormwaterSnapshot } from "@permits/stormwater";
import { startEmbedded } from "./support/embedded.js";

const root = path.resolve(import.meta.dirname, "..");
const script = path.join(root, "scripts/data-verify.mjs");
const GOVINFO = "https://www.govinfo.gov/content/pkg/FR-2026-01-08/html/2026-00121.htm";
const temps: string[] = [];
const temp = (prefix: string) => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  temps.push(d);
  return d;
};
afterAll(() => {
  for (const d of temps) fs.rmSync(d, { recursive: true, force: true });
});
/** A script run as npm would run it, without blocking this process (the runner must keep talking to its workers). */
const run = (file: string, args: string[], env: Record<string, string>) =>
  new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [file, ...args], { encoding: "utf8", env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => resolve({ status: err ? Number(err.code ?? 1) : 0, stdout, stderr }));
  });
const verify = (dataDir: string, args: string[], env: Record<string, string> = {}) => run(script, args, { DATA_DIR: dataDir, ...env });
const read = (f: string) => JSON.parse(fs.readFileSync(f, "utf8"));

/** A PDF of the given pages of lines, in Helvetica; "ﬁ" is drawn as the font's fi ligature glyph. */
async function pdf(pages: string[][]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = doc.context.register(doc.context.obj({ Type: "Font", Subtype: "Type1", BaseFont: "Helvetica", Encoding: { Type: "Encoding", BaseEncoding: "WinAnsiEncoding", Differences: [31, PDFName.of("fi")] } }));
  for (const lines of pages) {
    const page = doc.addPage([612, 792]);
    page.node.setFontDictionary(PDFName.of("F1"), font);
    const hex = (s: string) => PDFHexString.of([...s].map((c) => (c === "\uFB01" ? 31 : c.charCodeAt(0)).toString(16).padStart(2, "0")).join(""));
    page.pushOperators(beginText(), setFontAndSize("F1", 10), moveText(50, 740));
    for (const l of lines) page.pushOperators(showText(hex(l)), moveText(0, -14));
    page.pushOperators(endText());
  }
  return doc.save();
}

/** A folder of downloaded documents: the files and their sources.json. */
function folder(files: { file: string; url: string; body: Uint8Array | string; excerpt?: boolean }[]): string {
  const dir = temp("sources-");
  for (const f of files) fs.writeFileSync(path.join(dir, f.file), f.body);
  fs.writeFileSync(path.join(dir, "sources.json"), JSON.stringify(files.map(({ file, url, excerpt }) => ({ file, url, ...(excerpt ? { excerpt } : {}) }))));
  return dir;
}

type Fact = { basis: string; confidence: string; quote?: string; sourceUrl?: string; value: Record<string, unknown> | null };

describe("npm run data:verify on documents made here", () => {
  let data: string;
  let facts: Record<string, Fact>;
  let ruleset: Fact;
  /** An NWP limit held from an earlier edition, its quote stating its value: the promotion. */
  let limitKey: string;
  let limit: Fact;
  let pdfBytes: Uint8Array;
  const rulesetLines = (expiry: string) => {
    // The ruleset's DATES sentence, broken after "asso-" and with "definitions" set with the ﬁ ligature.
    const q = ruleset.quote!.replace("March 15, 2031", expiry);
    const at = q.indexOf("associated") + 4;
    return ["DATES:", `${q.slice(0, at)}-`, q.slice(at).replace("definitions", "de\uFB01nitions")];
  };

  beforeAll(async () => {
    execFileSync("npx", ["tsc", "-b"], { cwd: root, stdio: "ignore" });
    data = temp("verify-data-");
    fs.cpSync(path.join(root, "data"), data, { recursive: true });
    facts = nwpSnapshot(loadDataset(path.join(data, "nwp"))).facts as Record<string, Fact>;
    ruleset = facts.ruleset;
    [limitKey, limit] = Object.entries(facts).find(([k, f]) => /^permits\/\d+\/acreageLimits\/0$/.test(k) && f.basis === "prior-edition" && f.quote?.includes("1/2"))!;
    expect(ruleset.quote).toContain("associated definitions will go into effect on March 15, 2026");
    const official = Object.values(facts).filter((f) => f.sourceUrl === GOVINFO && f.quote && ["official-text", "agency-form"].includes(f.basis));
    expect(official).toEqual([ruleset]); // the PDF below states every official quote citing the document
    pdfBytes = await pdf([["Reissuance and Modification of Nationwide Permits", ...rulesetLines("March 15, 2031")], ["Nationwide permit terms.", `${limit.quote}.`]]);
  }, 180_000);

  it("a quote is confirmed with its page through a line-end hyphen and a ligature, and its values are stated", async () => {
    const r = await verify(data, ["--dir", folder([{ file: "nwp-2026.pdf", url: GOVINFO, body: pdfBytes }])]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`sha256 ${createHash("sha256").update(pdfBytes).digest("hex")}`);
    expect(r.stdout).toMatch(/confirmed +nwp:ruleset \(page 1\)/);
    expect(r.stdout).not.toContain("VALUE NOT STATED");
    expect(r.stdout).toMatch(/\| nwp-2026\.pdf +\| 1 +\| 0 +\| 0 +\| 1 +\|/);
  }, 120_000);

  it("a changed quote fails the run, naming the closest passage and its page", async () => {
    const r = await verify(data, ["--dir", folder([{ file: "nwp-2026.pdf", url: GOVINFO, body: await pdf([rulesetLines("March 15, 2032")]) }])]);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain("NOT FOUND          nwp:ruleset");
    expect(r.stdout).toMatch(/closest: ".*associated definitions will go into effect on March 15, 2026\. The NWPs will expire on March 15, 2032" \(page 1, 9\d% of its words\)/);
    expect(r.stderr).toContain("1 quote(s) not found in the official text");
  }, 120_000);

  it("an HTML page: typographic quotes, entities and markup do not stand between a quote and its text", async () => {
    const registry = read(path.join(data, "sources/sources.json")) as { documents: { url: string; facts: string[] }[] };
    const swFacts = stormwaterSnapshot(loadStormwater(path.join(data, "stormwater"))).facts as Record<string, Fact>;
    const sw = (k: string) => k.startsWith("stormwater:");
    // A stormwater document whose citing facts all quote it as official text.
    const quotes = (d: { facts: string[] }) => d.facts.map((k) => ({ k, f: swFacts[k.slice("stormwater:".length)] }));
    const doc = registry.documents.find((d) => d.facts.every(sw) && quotes(d).every(({ f }) => f.basis === "official-text" && f.quote?.includes(" ")))!;
    const qs = quotes(doc).map(({ f }) => f.quote!);
    const typeset = (q: string) => q.replace(/'/g, "\u2019").replace(/"([^"]*)"/g, "\u201C$1\u201D").replace(/ /, "&nbsp;").replace(/fi/g, "&#xFB01;").replace(/&(?!nbsp;|#xFB01;)/g, "&amp;");
    const html = `<html><head><title>Agency</title><style>p { color: red }</style><script>var x = "${qs[0]}".length;</script></head><body>${qs.map((q) => `<p><span>${typeset(q)}</span></p>`).join("\n")}</body></html>`;
    const r = await verify(data, ["--dir", folder([{ file: "page.html", url: doc.url, body: html }])]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    for (const { k } of quotes(doc)) expect(r.stdout).toMatch(new RegExp(`confirmed +${k.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\(page 1\\)`));
  }, 120_000);

  it("a value the quote and the text next to it do not state is reported, the quote still confirmed", async () => {
    const copy = temp("verify-value-");
    fs.cpSync(data, copy, { recursive: true });
    const file = path.join(copy, "nwp/ruleset.json");
    fs.writeFileSync(file, JSON.stringify({ ...read(file), permitCount: 58 }, null, 2));
    const r = await verify(copy, ["--dir", folder([{ file: "nwp-2026.pdf", url: GOVINFO, body: pdfBytes }])]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/confirmed +nwp:ruleset \(page 1\)/);
    expect(r.stdout).toContain("VALUE NOT STATED   nwp:ruleset (page 1): permitCount 58 is neither in its quote nor next to it");
    expect(r.stdout).toMatch(/\| nwp-2026\.pdf +\| 1 +\| 0 +\| 1 +\| 1 +\|/);
  }, 120_000);

  it("nothing is promoted without a verbatim match: one word changed leaves the fact as it was", async () => {
    const altered = `${limit.quote!.replace("loss", "losses")}.`;
    const r = await verify(data, ["--dir", folder([{ file: "nwp-2026.pdf", url: GOVINFO, body: await pdf([rulesetLines("March 15, 2031"), [altered]]) }])]);
    expect(r.status).toBe(0);
    expect(r.stdout).not.toContain("promote ");
    expect(r.stdout).toContain("0 promotion(s) proposed");
  }, 120_000);

  it("a prior-edition fact whose sentence the current edition states is proposed, and written only with --apply", async () => {
    const permits = path.join(data, "nwp/permits.json");
    const before = fs.readFileSync(permits, "utf8");
    const changelog = fs.readdirSync(path.join(data, "changelog/nwp"));
    const sources = folder([{ file: "nwp-2026.pdf", url: GOVINFO, body: pdfBytes }]);
    const proposed = await verify(data, ["--dir", sources]);
    expect(proposed.stdout).toContain(`promote            nwp:${limitKey} (prior-edition -> official-text, verified; page 2)`);
    expect(proposed.stdout).toContain("nothing written");
    expect(fs.readFileSync(permits, "utf8")).toBe(before);
    expect(fs.readdirSync(path.join(data, "changelog/nwp"))).toEqual(changelog);
    const v1 = nwpSnapshot(loadDataset(path.join(data, "nwp"))).datasetVersion;

    const applied = await verify(data, ["--dir", sources, "--apply", "--on=2026-11-28"]);
    expect(applied.stderr).toBe("");
    expect(applied.status).toBe(0);
    const [, n] = limitKey.split("/");
    const held = (read(permits) as { number: number; acreageLimits: Record<string, unknown>[] }[]).find((p) => p.number === Number(n))!.acreageLimits[0];
    expect(held).toMatchObject({ basis: "official-text", confidence: "verified", sourceUrl: GOVINFO, checkedOn: "2026-11-28", quote: limit.quote });
    expect(held.edition).toBeUndefined();
    expect(held.provenance).toContain(`page 2, by npm run data:verify on 2026-11-28: file nwp-2026.pdf, sha256 ${createHash("sha256").update(pdfBytes).digest("hex")}`);
    expect(read(path.join(data, "nwp/ruleset.json"))).toMatchObject({ basis: "official-text", checkedOn: "2026-11-28" }); // confirmed: read again
    const registered = read(path.join(data, "sources/sources.json")).documents.find((d: { url: string }) => d.url === GOVINFO);
    expect(registered.readings).toEqual([{ on: "2026-11-28", file: "nwp-2026.pdf", sha256: createHash("sha256").update(pdfBytes).digest("hex"), excerpt: false, confirmed: [{ fact: "nwp:ruleset", page: 1 }], promoted: [{ fact: `nwp:${limitKey}`, page: 2 }] }]);
    expect(registered.facts).toContain(`nwp:${limitKey}`); // it cites the document now
    // A new version, released: its snapshot names the one before; the registry follows the data.
    const v2 = nwpSnapshot(loadDataset(path.join(data, "nwp"))).datasetVersion;
    expect(v2).not.toBe(v1);
    expect(read(path.join(data, "changelog/nwp", `${v2}.json`)).previousVersion).toBe(v1);
    expect((await verify(data, ["--check"])).status).toBe(0);
    expect((await run(path.join(root, "scripts/data-release.mjs"), ["--check"], { DATA_DIR: data })).status).toBe(0);

    process.env.DATA_DIR = data;
    const gw = await startEmbedded();
    try {
      const d = (await gw.app.inject({ method: "GET", url: `/api/v1/changes?since=${v1}` })).json().data;
      expect(d).toMatchObject({ dataset: "nwp", since: v1, currentVersion: v2, changeCount: 1 });
      expect(d.versions).toEqual([expect.objectContaining({ datasetVersion: v2, previousVersion: v1, changeCount: 1, recheckedCount: 1 })]);
      expect(d.groups).toEqual([{ kind: "nwp", id: n, changes: [expect.objectContaining({ fact: limitKey, change: "changed", datasetVersion: v2 })] }]);
      const change = d.groups[0].changes[0];
      expect(change.before).toMatchObject({ basis: "prior-edition", confidence: "unverified", sourceUrl: limit.sourceUrl, quote: limit.quote });
      expect(change.after).toMatchObject({ basis: "official-text", confidence: "verified", sourceUrl: GOVINFO, checkedOn: "2026-11-28", quote: limit.quote });
    } finally {
      await gw.close();
      delete process.env.DATA_DIR;
    }
  }, 120_000);

  it("names what is wrong with the folder: none given, an unregistered URL", async () => {
    const none = await verify(data, [], { SOURCES_DIR: "" });
    expect(none.status).toBe(2);
    expect(none.stderr).toContain("name the folder of downloaded documents");
    const stray = await verify(data, ["--dir", folder([{ file: "a.txt", url: "https://example.gov/not-cited", body: "text" }])]);
    expect(stray.status).toBe(2);
    expect(stray.stderr).toContain("a.txt: https://example.gov/not-cited is not an official URL the data cites");
  }, 120_000);
});

describe("every fact the data could promote today", () => {
  it("is written by --apply into data that still loads, passes data:report and is released", async () => {
    const data = temp("verify-all-");
    fs.cpSync(path.join(root, "data"), data, { recursive: true });
    const facts: Record<string, Fact> = {};
    for (const [name, index] of [["nwp", nwpSnapshot(loadDataset(path.join(data, "nwp"))).facts], ["stormwater", stormwaterSnapshot(loadStormwater(path.join(data, "stormwater"))).facts]] as const) {
      for (const [k, f] of Object.entries(index)) facts[`${name}:${k}`] = f as Fact;
    }
    // For each document that is some facts' current edition, a text stating every quote it could confirm or promote.
    const docs = (read(path.join(data, "sources/sources.json")).documents as { url: string; facts: string[]; currentEditionFor: string[] }[]).filter((d) => d.currentEditionFor.length > 0);
    const promotable = (f: Fact) => ["prior-edition", "secondary"].includes(f.basis) && !!f.quote;
    const files = docs.map((d, i) => ({
      file: `doc${i}.txt`, url: d.url,
      body: Object.entries(facts).filter(([k, f]) => f.quote && (d.facts.includes(k) || (promotable(f) && d.currentEditionFor.some((p) => k.startsWith(p))))).map(([, f]) => f.quote).join("\n\n"),
    }));
    const r = await verify(data, ["--dir", folder(files), "--apply", "--on=2026-11-28"]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const promoted = r.stdout.split("\n").filter((l) => l.startsWith("  promote ")).length;
    expect(promoted).toBeGreaterThan(0);
    expect(r.stdout).toContain(`data:verify: ${promoted} promotion(s)`);
    const report = await run(path.join(root, "scripts/data-report.mjs"), ["--quiet", "--on=asOf"], { DATA_DIR: data });
    expect(report.stderr).toBe("");
    expect(report.status).toBe(0);
    expect((await run(path.join(root, "scripts/data-release.mjs"), ["--check"], { DATA_DIR: data })).status).toBe(0);
  }, 120_000);
});

describe("the openings of real documents (test/fixtures/sources)", () => {
  it("91 FR 768's first page states the 2026 permits' count, effective and expiry dates as the data holds them; the Tulsa District page states the reserved numbers", async () => {
    const nwp = loadDataset(path.join(root, "data/nwp"));
    expect(nwp.raw.ruleset).toMatchObject({ permitCount: 57, effectiveDate: "2026-03-15", expiryDate: "2031-03-15" });
    const r = await verify(path.join(root, "data"), ["--dir", path.join(root, "test/fixtures/sources")]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/confirmed +nwp:ruleset \(page 768\)/);
    expect(r.stdout).toMatch(/confirmed +nwp:ruleset\/reservedNumbers\/26 \(page 1\)/);
    expect(r.stdout).toMatch(/confirmed +nwp:ruleset\/reservedNumbers\/47 \(page 1\)/);
    expect(r.stdout).not.toContain("VALUE NOT STATED");
    expect(r.stdout).toMatch(/\| 91-fr-768-opening\.txt +\| 1 +\| 0 +\| 0 +\| 0 +\|/);
    expect(r.stdout).toMatch(/\| swt-nationwide-permit-program-opening\.txt +\| 2 +\| 0 +\| 0 +\| 0 +\|/);
  }, 120_000);
});

describe("data/sources/: the documents the data cites", () => {
  const registryPath = path.join(root, "data/sources/sources.json");

  it("matches its JSON Schema, and registers every official URL a fact cites with exactly the facts citing it", async () => {
    const validate = new Ajv({ allErrors: true, strict: true }).compile(read(path.join(root, "data/sources/schemas/sources.schema.json")));
    const registry = read(registryPath);
    expect(validate(registry), JSON.stringify(validate.errors)).toBe(true);
    const check = await verify(path.join(root, "data"), ["--check"]);
    expect(check.stderr).toBe("");
    expect(check.status).toBe(0);
    const nwpFacts = nwpSnapshot(loadDataset(path.join(root, "data/nwp"))).facts as Record<string, Fact>;
    const citing = Object.entries(nwpFacts).filter(([, f]) => f.sourceUrl === GOVINFO || f.sourceUrl?.startsWith("https://www.federalregister.gov/documents/2026/01/08/2026-00121/")).map(([k]) => `nwp:${k}`);
    const doc = registry.documents.find((d: { url: string }) => d.url === GOVINFO);
    expect(doc).toMatchObject({ edition: "91 FR 768", date: "2026-01-08", currentEditionFor: ["nwp:permits/", "nwp:ruleset"] });
    expect([...doc.facts].sort()).toEqual(citing.sort());
  }, 120_000);

  it("--check fails naming a cited URL that is not registered, and --register adds it", async () => {
    const data = temp("verify-registry-");
    fs.cpSync(path.join(root, "data"), data, { recursive: true });
    const file = path.join(data, "nwp/ruleset.json");
    const ruleset = read(file);
    ruleset.pcnReview.sourceUrl = "https://www.usace.army.mil/a-page-not-registered/";
    fs.writeFileSync(file, JSON.stringify(ruleset, null, 2));
    const check = await verify(data, ["--check"]);
    expect(check.status).toBe(1);
    expect(check.stderr).toContain("https://www.usace.army.mil/a-page-not-registered/ is cited by 1 fact(s) (nwp:ruleset/pcnReview) and not registered");
    expect((await verify(data, ["--register"])).status).toBe(0);
    const added = read(path.join(data, "sources/sources.json")).documents.find((d: { url: string }) => d.url === "https://www.usace.army.mil/a-page-not-registered/");
    expect(added).toMatchObject({ facts: ["nwp:ruleset/pcnReview"], edition: ruleset.pcnReview.edition, currentEditionFor: [] });
    expect((await verify(data, ["--check"])).status).toBe(0);
  }, 120_000);
});

describe("reading a text the way a quote is compared with it", async () => {
  const { normalise, htmlText } = await import("../scripts/verify/text.mjs");
  const { closestPassage, findQuote, valuesNotStated } = await import("../scripts/verify/match.mjs");
  const doc = (text: string) => ({ text: normalise(text), starts: [{ page: 3, at: 0 }] });

  it("folds ligatures, typographic quotes and dashes, GPO fraction marks and white space", async () => {
    expect(normalise("the \uFB01rst \uFB02ow\u00A0\u201Cquoted\u201D \u2018it\u2019s\u2019 768\u2013886 \\1/2\\-acre  \n end")).toBe("the first flow \"quoted\" 'it's' 768-886 1/2-acre end");
    expect(normalise(htmlText("<p>A&nbsp;&amp;&#160;B &sect; 2</p><script>x</script><p>C&#x2019;s</p>"))).toBe("A & B § 2 C's");
  });

  it("reads a word broken at a line end as one word, or hyphenated where the quote hyphenates it", async () => {
    const d = doc("the dis-\ncharge needs pre-\nconstruction notice");
    expect(findQuote(d, "the discharge needs")).toMatchObject({ page: 3 });
    expect(findQuote(d, "needs pre-construction notice")).not.toBeNull();
    expect(findQuote(d, "the dis charge")).toBeNull();
    expect(findQuote(doc("loss of 1/2-acre"), "loss of 1/2 acre")).toBeNull();
  });

  it("a value is stated only as a whole number or date, in the quote or next to it", async () => {
    const d = doc("Inspect at least once every 17 calendar days. It expires on March 15, 2031.");
    const q = "Inspect at least once every";
    const m = findQuote(d, q);
    expect(valuesNotStated({ value: 7 }, q, d, m)).toEqual([{ field: "value", value: 7 }]);
    expect(valuesNotStated({ value: 17, expiryDate: "2031-03-15" }, q, d, m)).toEqual([]);
    expect(valuesNotStated({ value: 0.5 }, "not more than one-half acre", d, null)).toEqual([]);
  });

  it("the closest passage starts where the quote's words start and runs as long as the quote", async () => {
    expect(closestPassage(doc("Intro words here. DATES: the permits expire on March 15, 2032. Other text."), "the permits expire on March 15, 2031")).toEqual({ passage: "the permits expire on March 15, 2032", page: 3, share: 6 / 7 });
  });
});
