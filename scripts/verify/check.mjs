// One supplied document against the facts: those that cite it (confirmed, not found, value not
// stated) and those whose current edition it is (a prior-edition or third-party fact whose quote
// it states verbatim is proposed for promotion). Reads nothing: the text and facts are given.
import { mayBeVerified } from "@permits/rules";
import { closestPassage, findQuote, valuesNotStated } from "./match.mjs";

/** The bases a promotion lifts: read in an earlier edition, on the agency's own page, or stated by a third party. */
const PROMOTABLE = new Set(["prior-edition", "agency-page", "secondary"]);

/**
 * What the document `doc` (a registry entry, its normalised text `text`) says of the facts.
 * `ownQuote(key)` tells whether the fact's quote is on the fact itself (only such a fact is
 * promoted: its quote and basis are written together). `excerpt`: the file is part of the
 * document, so a quote it lacks is not counted against the data.
 */
export function checkDocument({ doc, text, facts, ownQuote, excerpt = false }) {
  const out = { confirmed: [], notFound: [], notInEdition: [], valueNotStated: [], noQuote: [], promotions: [], notPromoted: [] };
  const propose = (key, f, m) => {
    const missing = valuesNotStated(f.value, f.quote, text, m);
    if (missing.length > 0) out.notPromoted.push({ key, page: m.page, why: `its value is not stated by the text (${missing.map((x) => `${x.field} ${x.value}`).join(", ")})` });
    else if (!ownQuote(key)) out.notPromoted.push({ key, page: m.page, why: "its quote is held on another record's citation" });
    else out.promotions.push({ key, fact: f, page: m.page });
  };
  for (const key of doc.facts) {
    const f = facts[key];
    if (!f) continue; // the registry is checked against the data before a run
    if (!f.quote) {
      out.noQuote.push({ key });
      continue;
    }
    const m = findQuote(text, f.quote);
    if (!m) {
      const entry = { key, quote: f.quote, closest: closestPassage(text, f.quote) };
      if (mayBeVerified(f.basis) && !excerpt) out.notFound.push(entry);
      else out.notInEdition.push(entry);
      continue;
    }
    if (mayBeVerified(f.basis)) {
      out.confirmed.push({ key, page: m.page });
      const missing = valuesNotStated(f.value, f.quote, text, m);
      if (missing.length > 0) out.valueNotStated.push({ key, page: m.page, missing });
    } else if (PROMOTABLE.has(f.basis)) propose(key, f, m);
  }
  // Facts of this edition read elsewhere (an older edition, a third party): promoted where it states their quote.
  const governed = (key) => doc.currentEditionFor.some((prefix) => key.startsWith(prefix));
  for (const [key, f] of Object.entries(facts)) {
    if (!f.quote || !PROMOTABLE.has(f.basis) || doc.facts.includes(key) || !governed(key)) continue;
    const m = findQuote(text, f.quote);
    if (m) propose(key, f, m);
  }
  return out;
}
