#!/usr/bin/env node
// npm run data:report: what each dataset holds, per basis and confidence, per jurisdiction and per
// NWP, the counts issue 28 tracks, and every fact by the date its source was last read; exits 1 on
// an internal contradiction or on a permit that has expired on the evaluation date with no
// successor recorded and no note that none is announced. `--on=yyyy-mm-dd` sets the evaluation
// date (default EVALUATION_DATE, else today, UTC); `--on=asOf` takes the stormwater dataset's own
// date, which `npm test` uses so that the calendar alone never turns the suite red (a permit that
// expires after the data was read is the report's news, not a regression). `--markdown` prints the README's "What we know"
// table. Reads the built services (npm run build) and DATA_DIR like the services do.
import { heldCounts, loadDataset as loadStormwater, nullFacts, stormwaterFacts } from "@permits/stormwater";
import { BASIS_WORDS, dateForms, factsByAge, isGovernmentUrl, namesOfficialSource, statesUnit, tallyFacts } from "@permits/rules";
import { loadDataset as loadNwp, nwpDatasetVersion, nwpFacts, nwpNullFacts } from "@permits/nwp";
const URL_KEYS = new Set(["sourceUrl", "url", "permitUrl", "agencyUrl", "regulatoryUrl", "authorityUrl", "appendixBUrl"]);
const problems = [];
function walk(o, path, visit) {
  if (Array.isArray(o)) o.forEach((x, i) => walk(x, `${path}[${i}]`, visit));
  else if (o && typeof o === "object") {
    visit(o, path);
    for (const [k, v] of Object.entries(o)) walk(v, `${path}.${k}`, visit);
  }
}

function checkFacts(name, raw) {
  walk(raw, name, (o, path) => {
    for (const [k, v] of Object.entries(o)) {
      if (URL_KEYS.has(k) && typeof v === "string" && !isGovernmentUrl(v)) problems.push(`${path}.${k}: ${v} is not on a government domain`);
    }
    // The rule of caution lets unchangedBy relax an answer, so it must name an official source.
    if (o.unchangedBy !== undefined && !namesOfficialSource(o.unchangedBy)) problems.push(`${path}.unchangedBy: names no official source by its government URL: ${o.unchangedBy}`);
    if (typeof o.basis !== "string" || typeof o.confidence !== "string") return;
    if (o.confidence === "verified") {
      if (o.basis !== "official-text" && o.basis !== "agency-form") problems.push(`${path}: verified on basis ${o.basis}`);
      const quote = o.quote ?? o.authorityCitation?.quote;
      if (!quote) problems.push(`${path}: verified with no quote`);
      const url = o.sourceUrl ?? o.authorityCitation?.sourceUrl;
      if (!url || !isGovernmentUrl(url)) problems.push(`${path}: verified with no official URL`);
    }
    if (o.basis === "prior-edition" && !o.edition) problems.push(`${path}: prior-edition without its edition`);
  });
}

/** A requirement whose value is a number holds its unit, and states it in every detail served (its own, or each case's). */
function checkUnits(name, raw) {
  walk(raw, name, (o, path) => {
    if (typeof o.label !== "string" || typeof o.kind !== "string") return;
    const numeric = [o.value, ...Object.values(o.cases ?? {}).map((c) => c.value)].some((v) => typeof v === "number");
    if (numeric && typeof o.unit !== "string") problems.push(`${path} (${o.id}): a number with no unit`);
    if (typeof o.unit !== "string") return;
    const details = [o.detail, ...Object.values(o.cases ?? {}).map((c) => c.detail)].filter((d) => typeof d === "string" && d !== "");
    for (const d of details) if (!statesUnit(d, o.unit)) problems.push(`${path} (${o.id}): its detail does not state its unit "${o.unit}": ${d}`);
  });
}

/** A dated term against the quote it was read in: each date must appear in it. */
function checkDates(path, dates, citation) {
  if (!citation?.quote) return;
  for (const [k, d] of Object.entries(dates)) {
    if (d && !dateForms(d).some((f) => citation.quote.includes(f))) problems.push(`${path}.${k}: ${d} does not appear in its quote "${citation.quote}"`);
  }
}

const sw = loadStormwater();
const onArg = process.argv.find((a) => a.startsWith("--on="))?.slice(5);
const evaluationDate = (onArg === "asOf" ? sw.asOf : onArg) ?? (process.env.EVALUATION_DATE || new Date().toISOString().slice(0, 10));
if (!/^\d{4}-\d{2}-\d{2}$/.test(evaluationDate) || Number.isNaN(Date.parse(evaluationDate))) {
  console.error(`data:report: the evaluation date must be yyyy-mm-dd, got ${JSON.stringify(evaluationDate)}`);
  process.exit(2);
}

/** A permit past its expiry on the evaluation date must name its successor or say none is announced. */
function checkTerm(path, term) {
  if (term.expiryDate && term.expiryDate < evaluationDate && !term.successorNote && !term.successorId) {
    problems.push(`${path}: expired on ${term.expiryDate} (evaluation date ${evaluationDate}) with no successor recorded and no note that none is announced`);
  }
}

const nwp = loadNwp();
checkFacts("stormwater", sw.raw);
checkUnits("stormwater", sw.raw);
checkFacts("nwp", nwp.raw);
for (const p of sw.raw.permits.permits) {
  checkDates(`stormwater.permits.${p.id}`, { effectiveDate: p.effectiveDate, ...(p.expiryCitation ? {} : { expiryDate: p.expiryDate }) }, p.citation);
  if (p.expiryCitation) checkDates(`stormwater.permits.${p.id}`, { expiryDate: p.expiryDate }, p.expiryCitation);
  checkTerm(`stormwater.permits.${p.id}`, p);
}
for (const j of sw.raw.jurisdictions.jurisdictions) {
  for (const p of j.statePermits) {
    const path = `stormwater.jurisdictions.${j.code}.${p.id}`;
    checkDates(path, { effectiveDate: p.effectiveDate, expiryDate: p.expiryDate }, p.datesCitation);
    if ((p.effectiveDate || p.expiryDate) && !p.datesCitation) problems.push(`${path}: a date is held with no citation`);
    if ((!p.effectiveDate || !p.expiryDate) && !p.datesNote) problems.push(`${path}: a date is null with no note saying why`);
    if (p.numberCitation && !(p.permitNumber && p.numberCitation.quote?.includes(p.permitNumber))) problems.push(`${path}.permitNumber: ${p.permitNumber} does not appear in its quote "${p.numberCitation.quote ?? ""}"`);
    checkTerm(path, p);
  }
}
const r = nwp.ruleset;
checkDates("nwp.ruleset", { effectiveDate: r.effectiveDate, expiryDate: r.expiryDate }, r);
checkTerm("nwp.ruleset", { expiryDate: r.expiryDate, successorId: nwp.raw.ruleset.successorId });

const tally = (raw) => {
  const t = tallyFacts(raw);
  return Object.fromEntries(BASIS_WORDS.map((b) => [b, { verified: t.find((x) => x.basis === b && x.confidence === "verified")?.count ?? 0, unverified: t.find((x) => x.basis === b && x.confidence === "unverified")?.count ?? 0 }]));
};
const swT = tally(sw.raw);
const nwpT = tally(nwp.raw);
const swNull = nullFacts(sw);
const nwpNull = nwpNullFacts(nwp.raw.permits);

if (process.argv.includes("--markdown")) {
  const lines = [
    "| basis | stormwater verified | stormwater unverified | NWP verified | NWP unverified |",
    "|---|---|---|---|---|",
    ...BASIS_WORDS.map((b) => `| ${b} | ${swT[b].verified} | ${swT[b].unverified} | ${nwpT[b].verified} | ${nwpT[b].unverified} |`),
    "",
    "| not held (null) | count |",
    "|---|---|",
    ...[...swNull, ...nwpNull].map((x) => `| ${x.label} | ${x.count} |`),
  ];
  console.log(lines.join("\n"));
} else if (!process.argv.includes("--quiet")) {
  console.log(`stormwater ${sw.version} (asOf ${sw.asOf}); nwp ${nwpDatasetVersion(nwp)} (${r.name}, ${r.effectiveDate} to ${r.expiryDate})\n`);
  console.log("Facts per basis and confidence");
  console.table(Object.fromEntries(BASIS_WORDS.map((b) => [b, { "stormwater verified": swT[b].verified, "stormwater unverified": swT[b].unverified, "nwp verified": nwpT[b].verified, "nwp unverified": nwpT[b].unverified }])));
  console.log("Facts not held (null)");
  console.table(Object.fromEntries([...swNull, ...nwpNull].map((x) => [x.label, x.count])));
  console.log("Per jurisdiction");
  console.table(Object.fromEntries(sw.raw.jurisdictions.jurisdictions.map((j) => {
    const p = j.statePermits[0];
    return [j.code, {
      confidence: j.confidence, basis: j.basis, permit: j.permitNumber ?? "-",
      effective: (j.authority === "epa" ? "2022-02-17" : p?.effectiveDate) ?? "-", expiry: (j.authority === "epa" ? "2027-02-16" : p?.expiryDate) ?? "-",
      requirements: j.authority === "epa" ? `CGP ${sw.raw.cgpRequirements.requirements.length}` : j.statePermits.reduce((n, s) => n + s.requirements.length, 0),
      credential: `${j.credential.gate} (${j.credential.basis})`,
    }];
  })));
  console.log("Counts (issue 28)");
  console.table(Object.fromEntries([
    ...swNull.slice(0, 4).map((x) => [x.label, String(x.count)]), // permit numbers, both dates, requirements
    ...heldCounts(sw).map((x) => [x.label, `${x.count} of ${x.of}${x.codes ? ` (${x.codes.join(" ")})` : ""}`]),
  ]));
  console.log("Facts by age: the date each fact's source was last read, oldest first");
  for (const [dataset, index] of [["stormwater", stormwaterFacts(sw.raw)], ["nwp", nwpFacts(nwp.raw)]]) {
    for (const age of factsByAge(index)) {
      const groups = age.groups.map((g) => `${g.kind} ${g.id} (${g.count})`).join(", ");
      console.log(`  ${dataset} ${age.checkedOn ?? "not dated (no source read)"}: ${age.count} fact(s): ${groups}`);
    }
  }
  console.log(`\nExpired permits checked against the evaluation date ${evaluationDate}.\n`);
  console.log("Per NWP");
  console.table(Object.fromEntries(nwp.raw.permits.map((p) => [p.number, {
    limit: p.acreageLimits[0] ? `${p.acreageLimits[0].display} (${p.acreageLimits[0].basis})` : "-",
    "limit terms": p.limitTerms.held ? p.limitTerms.basis : "not held",
    notification: p.notification.held ? `${p.notification.basis}` : "not held",
    "PCN always": p.pcnConditions.some((c) => c.kind === "always") ? "yes" : "",
  }])));
}
if (problems.length > 0) {
  console.error(`\n${problems.length} contradiction(s):\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  process.exit(1);
}
if (!process.argv.includes("--markdown")) console.log("data:report: no contradictions");
