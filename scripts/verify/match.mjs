// A fact's quote against a document's normalised text (text.mjs): where it is, or the passage
// closest to it when it is not there; and whether the fact's value is stated in its quote or next
// to it. Exact after normalising: a word broken at a line end is the one difference allowed.
import { dateForms } from "@permits/rules";
import { normalise, pageAt, SHY } from "./text.mjs";

const escape = (c) => c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const isLetter = (c) => c !== undefined && /\p{L}/u.test(c);

/** The quote as a pattern: its normalised text, letting a soft hyphen (a line-end break) sit between two letters. */
function quotePattern(quote) {
  const q = [...normalise(quote)];
  let src = "";
  q.forEach((c, i) => {
    const between = isLetter(q[i - 1]) && isLetter(q[i + 1]);
    if (c === "-" && between) src += `[-${SHY}]`;
    else src += escape(c) + (isLetter(c) && isLetter(q[i + 1]) ? `${SHY}?` : "");
  });
  return new RegExp(src, "u");
}

/** Where the quote is in the document: its start, end and page; null when it is not there. */
export function findQuote(doc, quote) {
  const m = quotePattern(quote).exec(doc.text);
  return m ? { at: m.index, end: m.index + m[0].length, page: pageAt(doc, m.index) } : null;
}

const readable = (s) => s.replace(new RegExp(SHY, "g"), "");

/** The document's words (lower case, without punctuation) with where each starts and ends. */
function words(text) {
  return [...text.matchAll(/[\p{L}\p{N}]+(?:[\p{L}\p{N}/.,'-\u00AD]*[\p{L}\p{N}])?/gu)].map((m) => ({ w: m[0].toLowerCase().replace(new RegExp(SHY, "g"), ""), at: m.index, end: m.index + m[0].length }));
}

/**
 * The passage of the document most like the quote: the run of as many words as the quote has that
 * shares the most of its words, with its page and the share of the quote's words it holds.
 */
export function closestPassage(doc, quote) {
  const q = words(normalise(quote)).map((x) => x.w);
  const need = new Map();
  for (const w of q) need.set(w, (need.get(w) ?? 0) + 1);
  const ws = words(doc.text);
  const k = Math.min(q.length, ws.length);
  if (k === 0) return { passage: "", page: pageAt(doc, 0), share: 0 };
  const have = new Map();
  let score = 0;
  let best = { score: -1, from: 0 };
  const add = (w, d) => {
    const n = have.get(w) ?? 0;
    if (d > 0 && n < (need.get(w) ?? 0)) score++;
    if (d < 0 && n <= (need.get(w) ?? 0)) score--;
    have.set(w, n + d);
  };
  for (let i = 0; i < ws.length; i++) {
    add(ws[i].w, 1);
    if (i >= k) add(ws[i - k].w, -1);
    if (i >= k - 1 && score > best.score) best = { score, from: i - k + 1 };
  }
  // Started at the first word the quote has, so a changed word at its end is in the passage.
  let start = best.from;
  while (start < best.from + k - 1 && !need.has(ws[start].w)) start++;
  const from = ws[start];
  const to = ws[Math.min(ws.length - 1, start + k - 1)];
  return { passage: readable(doc.text.slice(from.at, to.end)), page: pageAt(doc, from.at), share: best.score / q.length };
}

const NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"];
const FRACTIONS = { 0.1: ["1/10", "one-tenth"], 0.25: ["1/4", "one-quarter", "one-fourth"], 0.5: ["1/2", "one-half", "half"], 0.75: ["3/4", "three-quarters"] };

/** The ways a text may write a number: 7, seven; 1,000; 0.5, 1/2, one-half. */
function numberForms(n) {
  const forms = [String(n), n.toLocaleString("en-US")];
  if (Number.isInteger(n) && n < NUMBER_WORDS.length) forms.push(NUMBER_WORDS[n]);
  if (n > 0 && n < 1) forms.push(String(n).slice(1), ...(FRACTIONS[n] ?? []));
  return [...new Set(forms)];
}

/** The fields of a fact's value that a document states, and the ways each may be written. */
const CHECKED = {
  value: numberForms,
  reviewDays: numberForms,
  permitCount: numberForms,
  minAcres: numberForms,
  maxAcresExclusive: numberForms,
  effectiveDate: dateForms,
  expiryDate: dateForms,
  permitNumber: (s) => [s],
  number: numberForms,
};

/** A form found as a whole number or word, not inside a longer one (7 is not in 17 or 7.5). */
function states(text, form) {
  const word = /^[\p{L}-]+$/u.test(form);
  const re = word ? new RegExp(`(?<![\\p{L}])${escape(form)}(?![\\p{L}])`, "iu") : new RegExp(`(?<![\\d.,/])${escape(form)}(?![\\d]|[.,/]\\d)`, "u");
  return re.test(text);
}

/** How far either side of a quote the document is read for its value, in characters. */
export const NEXT_TO = 300;

/**
 * The fields of the fact's value that neither its quote nor the document next to it states
 * (`match` is where the quote is; without it, only the quote is read).
 */
export function valuesNotStated(value, quote, doc, match) {
  const near = match ? readable(doc.text.slice(Math.max(0, match.at - NEXT_TO), match.end + NEXT_TO)) : "";
  const q = normalise(quote);
  const missing = [];
  for (const [field, formsOf] of Object.entries(CHECKED)) {
    const v = value?.[field];
    if (v === null || v === undefined || (typeof v !== "number" && typeof v !== "string")) continue;
    const forms = formsOf(v);
    if (!forms.some((f) => states(q, f) || states(near, f))) missing.push({ field, value: v });
  }
  return missing;
}
