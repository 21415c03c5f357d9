// data/sources/sources.json: every official document the data cites (each URL a fact's sourceUrl
// names), with its title, edition and date, the prefixes of the facts whose current edition it is,
// and the facts that cite it. The facts are generated from the data (`--register`), and `--check`
// fails when the file and the data part: a cited URL not registered, a fact list out of date.
import fs from "node:fs";
import path from "node:path";
import { Ajv } from "ajv";
import { canonicalJson, dataDir } from "@permits/rules";
import { loadDataset as loadStormwater, stormwaterDir, stormwaterSnapshot } from "@permits/stormwater";
import { loadDataset as loadNwp, nwpDataDir, nwpSnapshot } from "@permits/nwp";
import { factObject, quoteHolder, rawFiles } from "./promote.mjs";

export const registryFile = () => path.join(dataDir(), "sources", "sources.json");
const schemaFile = () => path.join(dataDir(), "sources", "schemas", "sources.schema.json");

/** Every fact of both datasets as the changelog indexes them, keyed "<dataset>:<fact>". */
export function loadFacts() {
  const sw = loadStormwater(stormwaterDir());
  const nwp = loadNwp(nwpDataDir());
  const facts = {};
  for (const s of [stormwaterSnapshot(sw), nwpSnapshot(nwp)]) for (const [k, f] of Object.entries(s.facts)) facts[`${s.dataset}:${k}`] = f;
  return { facts, raw: { stormwater: sw.raw, nwp: nwp.raw } };
}

/** The registry, schema-checked; throws naming every problem. */
export function readRegistry(file = registryFile()) {
  const registry = JSON.parse(fs.readFileSync(file, "utf8"));
  const validate = new Ajv({ allErrors: true, strict: true }).compile(JSON.parse(fs.readFileSync(schemaFile(), "utf8")));
  if (!validate(registry)) throw new Error(`${file} does not match its schema:\n${validate.errors.map((e) => `  ${e.instancePath || "/"} ${e.message}`).join("\n")}`);
  return registry;
}

/** The registered document an official URL names (its own URL or one it is also cited as). */
export function documentOf(registry, url) {
  return registry.documents.find((d) => d.url === url || d.alsoCitedAs.includes(url)) ?? null;
}

/** A new document's title, edition and date as the data names them: the record the URL belongs to, else how its first fact cites it. */
function described(url, raw, citing) {
  const r = raw.nwp.ruleset;
  if (url === r.sourceUrl || r.sources.some((s) => s.url === url && s.label.includes(r.federalRegisterCitation))) return { title: r.name, edition: r.federalRegisterCitation, date: r.publishedDate };
  const label = r.sources.find((s) => s.url === url)?.label;
  if (label) return { title: label, edition: null, date: null };
  const permits = [...raw.stormwater.permits.permits, ...raw.stormwater.jurisdictions.jurisdictions.flatMap((j) => j.statePermits)];
  const p = permits.find((x) => x.permitUrl === url || x.citation?.sourceUrl === url);
  if (p) return { title: p.name, edition: p.version ?? null, date: p.effectiveDate ?? null };
  const dataset = citing[0].key.split(":")[0];
  const o = quoteHolder(factObject(new Map(Object.entries(rawFiles(raw, dataset))), citing[0].key));
  const said = o.sourceCitation ?? o.provenance?.split(/(?<=[a-z)])[.;] /)[0] ?? o.edition;
  return { title: said ?? `Cited by ${citing[0].key}`, edition: o.edition ?? null, date: null };
}

/** The registry as the data makes it: each document's facts regenerated, every cited URL registered (new ones described from the data). */
export function registryFromData(current, { facts, raw }) {
  const documents = current.documents.map((d) => ({ ...d, facts: [] }));
  const cited = Object.entries(facts).filter(([, f]) => f.sourceUrl).sort(([a], [b]) => (a < b ? -1 : 1));
  for (const [key, f] of cited) {
    let doc = documentOf({ documents }, f.sourceUrl);
    if (!doc) {
      const citing = cited.filter(([, g]) => g.sourceUrl === f.sourceUrl).map(([k, g]) => ({ key: k, ...g }));
      doc = { url: f.sourceUrl, alsoCitedAs: [], ...described(f.sourceUrl, raw, citing), currentEditionFor: [], facts: [] };
      documents.push(doc);
    }
    doc.facts.push(key);
  }
  // A document no fact cites any more is kept only when it governs facts (currentEditionFor).
  return { ...current, documents: documents.filter((d) => d.facts.length > 0 || d.currentEditionFor.length > 0) };
}

export const registryText = (registry) => `${JSON.stringify(registry, null, 2)}\n`;

/** What differs between the registry file and the data, in words; empty when they agree. */
export function registryProblems(registry, data) {
  const fresh = registryFromData(registry, data);
  const problems = [];
  for (const d of fresh.documents) {
    const held = registry.documents.find((x) => x.url === d.url);
    if (!held) problems.push(`${d.url} is cited by ${d.facts.length} fact(s) (${d.facts[0]}) and not registered`);
    else if (canonicalJson(held.facts) !== canonicalJson(d.facts)) problems.push(`${d.url}: its facts differ from the data (registered ${held.facts.length}, cited by ${d.facts.length})`);
  }
  for (const d of registry.documents) if (!fresh.documents.some((x) => x.url === d.url)) problems.push(`${d.url} is registered but no fact cites it and it governs none`);
  return problems;
}
