#!/usr/bin/env node
// npm run data:verify -- --dir <folder> (or SOURCES_DIR): the official documents an operator
// downloaded, checked against the facts that cite them. The folder holds the files and a
// sources.json ([{ "file": "2026-nwp.pdf", "url": "<the official URL the data cites>" }], with
// "excerpt": true for a file that is only part of its document). For each file: its sha256; each
// citing fact's quote confirmed (with its page) or not found (with the closest passage: the run
// exits 1); a value its quote does not state; and each fact held from an earlier edition or a third
// party whose quote the current edition states verbatim, proposed for promotion. `--apply` writes
// the promotions and confirmations, regenerates data/sources/ and releases the new dataset version
// (scripts/lib/release.mjs), so GET /api/v1/changes lists them. `--on=yyyy-mm-dd` dates the reading
// (default today, UTC). `--register` regenerates data/sources/sources.json from the data; `--check`
// exits 1 when it no longer matches; `--list` prints what to download, most-cited first. Reads the
// built services (npm run build) and DATA_DIR.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { isCalendarDate } from "@permits/rules";
import { release } from "./lib/release.mjs";
import { checkDocument } from "./verify/check.mjs";
import { applyReadings, factObject, readDataFiles } from "./verify/promote.mjs";
import { documentOf, loadFacts, readRegistry, registryFile, registryFromData, registryProblems, registryText } from "./verify/registry.mjs";
import { documentText, extractPages, kindOf } from "./verify/text.mjs";

const args = process.argv.slice(2);
const flag = (name) => args.includes(`--${name}`);
const option = (name) => {
  const i = args.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (i < 0) return undefined;
  return args[i].includes("=") ? args[i].slice(args[i].indexOf("=") + 1) : args[i + 1];
};
const fail = (message, code = 2) => {
  console.error(`data:verify: ${message}`);
  process.exit(code);
};

if (flag("list")) {
  // What to download: each registered document, most-cited first, with what reading it can settle.
  const { facts } = loadFacts();
  const rows = readRegistry().documents.map((d) => {
    const quoted = d.facts.filter((k) => facts[k]?.quote).length;
    const governed = Object.entries(facts).filter(([k, f]) => f.quote && ["prior-edition", "secondary"].includes(f.basis) && d.currentEditionFor.some((p) => k.startsWith(p))).length;
    return { d, quoted, governed };
  });
  rows.sort((a, b) => b.d.facts.length + b.governed - (a.d.facts.length + a.governed) || (a.d.url < b.d.url ? -1 : 1));
  console.log("| facts citing it | with a quote | earlier-edition or third-party facts it may promote | official URL | title (edition, date) |\n|---|---|---|---|---|");
  for (const { d, quoted, governed } of rows) console.log(`| ${d.facts.length} | ${quoted} | ${governed} | ${d.url} | ${d.title}${d.edition ? ` (${d.edition}` : ""}${d.date ? `${d.edition ? ", " : " ("}${d.date})` : d.edition ? ")" : ""} |`);
  process.exit(0);
}

if (flag("register") || flag("check")) {
  const data = loadFacts();
  const registry = readRegistry();
  if (flag("check")) {
    const problems = registryProblems(registry, data);
    if (problems.length > 0) fail(`data/sources/sources.json does not match the data (npm run data:verify -- --register):\n  ${problems.join("\n  ")}`, 1);
    console.log(`data:verify: data/sources/sources.json registers the ${registry.documents.length} documents the data cites`);
  } else {
    const fresh = registryFromData(registry, data);
    fs.writeFileSync(registryFile(), registryText(fresh));
    console.log(`data:verify: ${fresh.documents.length} documents registered, ${fresh.documents.reduce((n, d) => n + d.facts.length, 0)} citing facts`);
  }
  process.exit(0);
}

const dir = option("dir") ?? process.env.SOURCES_DIR;
if (!dir) fail("name the folder of downloaded documents: npm run data:verify -- --dir <folder> (or SOURCES_DIR)");
const on = option("on") ?? new Date().toISOString().slice(0, 10);
if (!isCalendarDate(on)) fail(`--on must be a date written yyyy-mm-dd, got ${JSON.stringify(on)}`);
let supplied;
try {
  supplied = JSON.parse(fs.readFileSync(path.join(dir, "sources.json"), "utf8"));
} catch (e) {
  fail(`cannot read ${path.join(dir, "sources.json")}: ${e.message}`);
}
const wellFormed = (s) => s && typeof s.file === "string" && typeof s.url === "string" && !path.isAbsolute(s.file) && !s.file.split(/[\\/]/).includes("..") && (s.excerpt === undefined || typeof s.excerpt === "boolean");
if (!Array.isArray(supplied) || !supplied.every(wellFormed)) fail('sources.json must be a list of { "file": "<name in the folder>", "url": "<official URL>" } (and "excerpt": true for part of a document)');

const data = loadFacts();
const registry = readRegistry();
const stale = registryProblems(registry, data);
if (stale.length > 0) fail(`data/sources/sources.json does not match the data; run npm run data:verify -- --register first:\n  ${stale.join("\n  ")}`);
const files = readDataFiles();
const ownQuote = (key) => typeof factObject(files, key).quote === "string";

const reports = [];
for (const s of supplied) {
  const doc = documentOf(registry, s.url);
  if (!doc) fail(`${s.file}: ${s.url} is not an official URL the data cites (data/sources/sources.json lists them)`);
  const file = path.join(dir, s.file);
  if (!fs.existsSync(file)) fail(`${s.file} is not in ${dir}`);
  const bytes = fs.readFileSync(file);
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  let text;
  try {
    text = documentText(await extractPages(bytes, kindOf(s.file)));
  } catch (e) {
    fail(`${s.file}: its text could not be read (${e.message})`);
  }
  if (!text.text) fail(`${s.file}: no text could be read from it (a scanned PDF needs its text recognised first)`);
  reports.push({ source: s, doc, sha256, result: checkDocument({ doc, text, facts: data.facts, ownQuote, excerpt: s.excerpt === true }) });
}

// A fact proposed by two documents is promoted once, by the first.
const promoted = new Set();
for (const r of reports) r.result.promotions = r.result.promotions.filter((p) => !promoted.has(p.key) && promoted.add(p.key));

// A promoted fact's own sentences may still speak of the earlier edition or the third party.
const SOURCE_FIELDS = new Set(["basis", "confidence", "checkedOn", "sourceCitation", "sourceUrl", "quote", "provenance", "edition", "unchangedBy"]);
const wordsToReview = (key) => {
  const fields = Object.entries(factObject(files, key)).filter(([k, v]) => !SOURCE_FIELDS.has(k) && typeof v === "string" && v.includes(" ")).map(([k]) => k);
  return fields.length > 0 ? `; review its ${fields.join(", ")}` : "";
};
const quoted = (s) => JSON.stringify(s.length > 220 ? `${s.slice(0, 220)}...` : s);
for (const { source, doc, sha256, result } of reports) {
  console.log(`\n${source.file}: ${doc.title}${doc.edition ? ` (${doc.edition})` : ""}\n  ${doc.url}\n  sha256 ${sha256}${source.excerpt ? " (an excerpt of the document)" : ""}`);
  for (const c of result.confirmed) console.log(`  confirmed          ${c.key} (page ${c.page})`);
  for (const n of result.notFound) console.log(`  NOT FOUND          ${n.key}\n    quote:   ${quoted(n.quote)}\n    closest: ${quoted(n.closest.passage)} (page ${n.closest.page}, ${Math.round(n.closest.share * 100)}% of its words)`);
  for (const n of result.notInEdition) console.log(`  not in this text   ${n.key}\n    quote:   ${quoted(n.quote)}\n    closest: ${quoted(n.closest.passage)} (page ${n.closest.page}, ${Math.round(n.closest.share * 100)}% of its words)`);
  for (const v of result.valueNotStated) console.log(`  VALUE NOT STATED   ${v.key} (page ${v.page}): ${v.missing.map((m) => `${m.field} ${m.value}`).join(", ")} is neither in its quote nor next to it`);
  for (const p of result.promotions) console.log(`  promote            ${p.key} (${p.fact.basis} -> official-text, verified; page ${p.page})${wordsToReview(p.key)}`);
  for (const p of result.notPromoted) console.log(`  not promoted       ${p.key} (page ${p.page}): ${p.why}`);
}

const rows = reports.map(({ source, result: r }) => [source.file, r.confirmed.length, r.notFound.length, r.valueNotStated.length, r.promotions.length, r.notInEdition.length, r.noQuote.length]);
const head = ["document", "confirmed", "not found", "value not stated", "promoted", "not in this text", "no quote"];
const width = head.map((h, i) => Math.max(h.length, ...rows.map((row) => String(row[i]).length)));
const line = (cells) => `| ${cells.map((c, i) => String(c).padEnd(width[i])).join(" | ")} |`;
console.log(`\n${[line(head), `|${width.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.map(line)].join("\n")}`);

const notFound = reports.reduce((n, r) => n + r.result.notFound.length, 0);
const promotions = reports.flatMap((r) => r.result.promotions.map((p) => ({ ...p, document: r.doc, file: r.source.file, sha256: r.sha256 })));
if (notFound > 0) fail(`${notFound} quote(s) not found in the official text: correct the fact (or supply the document's full text), then run again${flag("apply") ? "; nothing was written" : ""}`, 1);
if (!flag("apply")) {
  console.log(`\ndata:verify: ${promotions.length} promotion(s) proposed; nothing written (--apply writes them and releases a new dataset version)`);
  process.exit(0);
}

const before = release({ check: true });
if (before.problems.length > 0) fail(`release the data as it is before applying (npm run data:release): ${before.problems.join("; ")}`);
const confirmations = reports.flatMap((r) => r.result.confirmed.map((c) => ({ ...c, document: r.doc, file: r.source.file, sha256: r.sha256 })));
const { written, restore } = applyReadings({ promotions, confirmations }, on);
let fresh;
try {
  fresh = registryFromData(registry, loadFacts());
} catch (e) {
  restore();
  fail(`the data would no longer load, so nothing was written: ${e.message}`, 1);
}
// Each document's reading: the file, its sha256 and what it confirmed and promoted.
for (const r of reports) {
  const doc = fresh.documents.find((d) => d.url === r.doc.url);
  const page = (x) => ({ fact: x.key, page: x.page });
  doc.readings = [...(doc.readings ?? []), { on, file: r.source.file, sha256: r.sha256, excerpt: r.source.excerpt === true, confirmed: r.result.confirmed.map(page), promoted: r.result.promotions.map(page) }];
}
fs.writeFileSync(registryFile(), registryText(fresh));
const after = release();
if (after.problems.length > 0) fail(after.problems.join("\n"), 1);
for (const l of after.lines) console.log(l);
console.log(`\ndata:verify: ${promotions.length} promotion(s) and ${confirmations.length} confirmation(s) written to ${written.join(", ") || "no file"}; data/sources/sources.json regenerated.`);
console.log("Next: review the promoted facts' own words (a limit's derivation, a term's summary) where they still speak of an earlier edition; npm run data:report; npm run data:readme; npm run generate:examples; commit data/ and docs/.");
