// Writing promotions into the data files (npm run data:verify -- --apply): a fact held from an
// earlier edition or a third party, whose quote was found verbatim in the current edition's
// official text, becomes official text, verified, with where it was read as its provenance.
import fs from "node:fs";
import path from "node:path";
import { dataDir, elementKey } from "@permits/rules";

/** Where each first part of a fact's key lives: its file under data/, and the field of it the facts are indexed from. */
const FILES = {
  stormwater: { jurisdictions: ["stormwater/jurisdictions.json", "jurisdictions"], permits: ["stormwater/permits.json", "permits"], "cgp-requirements": ["stormwater/cgp-requirements.json"], "epa-areas": ["stormwater/epa-areas.json"] },
  nwp: { ruleset: ["nwp/ruleset.json"], permits: ["nwp/permits.json"], districts: ["nwp/districts.json"], "states-401": ["nwp/states-401.json"], activities: ["nwp/activities.json"] },
};

/** The object a fact key ("nwp:permits/29/acreageLimits/0") names, inside the parsed file it lives in. */
export function factObject(files, key) {
  const [dataset, rest] = key.split(/:(.*)/s);
  const [head, ...parts] = rest.split("/");
  const [file, field] = FILES[dataset]?.[head] ?? [];
  if (!file) throw new Error(`${key}: no data file holds it`);
  let node = field ? files.get(file)[field] : files.get(file);
  for (const p of parts) {
    node = Array.isArray(node) ? node.find((x, i) => elementKey(x, i) === p) : node?.[p];
    if (node === undefined) throw new Error(`${key}: not found in ${file}`);
  }
  return node;
}

/** The words a promoted fact's provenance carries: the file read, its sha256 and page, and what it rested on before. */
export function provenanceOf(p, on) {
  const before = p.fact.basis === "prior-edition" ? `an earlier edition${p.was.edition ? ` (${p.was.edition})` : ""}` : "a third party's statement";
  return `Read verbatim in ${p.document.title}${p.document.edition ? ` (${p.document.edition})` : ""}, page ${p.page}, by npm run data:verify on ${on}: file ${p.file}, sha256 ${p.sha256}. Held before on ${before}${p.was.provenance ? `: ${p.was.provenance}` : ""}`;
}

/** A loaded dataset's raw data as the files it was read from, by path under data/. */
export function rawFiles(raw, dataset) {
  if (dataset === "stormwater") return { "stormwater/jurisdictions.json": raw.stormwater.jurisdictions, "stormwater/permits.json": raw.stormwater.permits, "stormwater/cgp-requirements.json": raw.stormwater.cgpRequirements, "stormwater/epa-areas.json": raw.stormwater.epaAreas };
  return { "nwp/ruleset.json": raw.nwp.ruleset, "nwp/permits.json": raw.nwp.permits, "nwp/districts.json": raw.nwp.districts, "nwp/states-401.json": raw.nwp.states, "nwp/activities.json": raw.nwp.activities };
}

/** The parsed data files a fact key may name, by path under data/. */
export function readDataFiles() {
  const files = new Map();
  for (const list of Object.values(FILES)) for (const [file] of Object.values(list)) files.set(file, JSON.parse(fs.readFileSync(path.join(dataDir(), file), "utf8")));
  return files;
}

/** The object that holds a fact's quote: the fact itself, or the citation it rests on. */
export function quoteHolder(o) {
  if (typeof o.quote === "string") return o;
  return Object.values(o).find((v) => v && typeof v === "object" && !Array.isArray(v) && typeof v.quote === "string" && typeof v.basis === "string") ?? o;
}

const fileOf = (key) => {
  const [dataset, rest] = key.split(/:(.*)/s);
  return FILES[dataset][rest.split("/")[0]][0];
};

// The sentence a confirmation adds to a provenance, replaced by the next confirmation.
const CONFIRMED = / ?Confirmed verbatim in [^]*? by npm run data:verify on \d{4}-\d{2}-\d{2}: file [^]*?, sha256 [0-9a-f]{64}\./g;

/**
 * Writes the readings into the data files: each promotion (official text, verified, its provenance
 * the file read) and each confirmation (read again on `on`; where its record keeps a provenance,
 * the file and its sha256 are added to it: every reading is also in data/sources/). Returns the
 * files written (relative to data/) and a function that puts them back as they were.
 */
export function applyReadings({ promotions, confirmations }, on) {
  const files = readDataFiles();
  const touched = new Set();
  for (const p of promotions) {
    const o = factObject(files, p.key);
    const was = { ...o };
    Object.assign(o, { basis: "official-text", confidence: "verified", sourceUrl: p.document.url, checkedOn: on, provenance: provenanceOf({ ...p, was }, on) });
    // An earlier edition's name and an official source saying it is unchanged no longer apply.
    delete o.edition;
    delete o.unchangedBy;
    touched.add(fileOf(p.key));
  }
  for (const c of confirmations) {
    const o = quoteHolder(factObject(files, c.key));
    if (typeof o.provenance === "string") o.provenance = `${o.provenance.replace(CONFIRMED, "")} Confirmed verbatim in ${c.document.title}, page ${c.page}, by npm run data:verify on ${on}: file ${c.file}, sha256 ${c.sha256}.`.trim();
    o.checkedOn = on;
    touched.add(fileOf(c.key));
  }
  const originals = new Map([...touched].map((f) => [f, fs.readFileSync(path.join(dataDir(), f))]));
  for (const f of touched) fs.writeFileSync(path.join(dataDir(), f), `${JSON.stringify(files.get(f), null, 2)}\n`);
  return { written: [...touched], restore: () => originals.forEach((bytes, f) => fs.writeFileSync(path.join(dataDir(), f), bytes)) };
}
