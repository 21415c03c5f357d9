// The text of an official document as npm run data:verify reads it: extracted from a PDF (unpdf,
// pdf.js without a browser), an HTML page or plain text, page by page, then normalised so that a
// quote typed from the document matches what the file encodes: white space, ligatures, typographic
// quotes and dashes, and words broken at a line end.
import { getDocumentProxy } from "unpdf";

/** A line-end hyphen, kept as a soft hyphen so a match may read the word joined or hyphenated. */
export const SHY = "\u00AD";

const ENTITIES = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " ", sect: "§", para: "¶", ndash: "–", mdash: "—", lsquo: "‘", rsquo: "’", ldquo: "“", rdquo: "”", hellip: "…", frac12: "½", frac14: "¼", frac34: "¾", deg: "°", shy: "" };

function decodeEntities(s) {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+\d*);/gi, (all, e) => {
    if (e[0] === "#") return String.fromCodePoint(e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : Number(e.slice(1)));
    return ENTITIES[e.toLowerCase()] ?? all;
  });
}

/** An HTML page's text: scripts, styles and comments dropped, block elements as line breaks. */
export function htmlText(html) {
  const text = html
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/<(script|style|head)\b[\s\S]*?<\/\1\s*>/gi, " ")
    .replace(/<(br|\/p|\/div|\/li|\/tr|\/h[1-6]|\/pre|\/table|p|div|li|tr|h[1-6])\b[^>]*>/gi, "\n")
    .replace(/<[^>]*>/g, "");
  return decodeEntities(text);
}

/** A PDF's text per page, one line per text line as pdf.js reports it. */
async function pdfPages(bytes) {
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  const pages = [];
  for (let n = 1; n <= pdf.numPages; n++) {
    const content = await (await pdf.getPage(n)).getTextContent();
    pages.push({ page: n, text: content.items.map((i) => ("str" in i ? i.str + (i.hasEOL ? "\n" : "") : "")).join("") });
  }
  await pdf.cleanup();
  return pages;
}

/**
 * Federal Register text on govinfo marks each printed page "[[Page 768]]": such a document is split
 * there, so a quote is placed on the page the Federal Register prints. Text without markers is one page.
 */
function markedPages(text) {
  const parts = text.split(/\[\[Page (\d+)\]\]/);
  if (parts.length === 1) return [{ page: 1, text }];
  const pages = parts[0].trim() ? [{ page: Number(parts[1]) - 1, text: parts[0] }] : [];
  for (let i = 1; i < parts.length; i += 2) pages.push({ page: Number(parts[i]), text: parts[i + 1] });
  return pages;
}

/** The kind of a file by its name: pdf, html or text. */
export function kindOf(file) {
  if (/\.pdf$/i.test(file)) return "pdf";
  if (/\.x?html?$/i.test(file)) return "html";
  return "text";
}

/** A file's pages, before normalising. */
export async function extractPages(bytes, kind) {
  if (kind === "pdf") return pdfPages(bytes);
  const text = Buffer.from(bytes).toString("utf8");
  return markedPages(kind === "html" ? htmlText(text) : text);
}

const SINGLE_QUOTES = /[\u2018\u2019\u201A\u201B\u2032]/g;
const DOUBLE_QUOTES = /[\u201C\u201D\u201E\u201F\u2033]/g;
const DASHES = /[\u2010\u2011\u2012\u2013\u2014\u2015\u2212]/g;

/**
 * One text the way a quote is compared with it. NFKC folds ligatures (ﬁ ﬂ ﬀ ﬃ ﬄ), non-breaking
 * and other wide spaces and fractions (½ is 1⁄2, written 1/2); typographic quotes and dashes
 * become ' " and -; GPO's fraction marks (\1/2\) are dropped; a hyphen at a line end between two
 * letters is kept as a soft hyphen (a match reads the word joined or hyphenated); all other
 * white space is one space.
 */
export function normalise(text) {
  return text
    .normalize("NFKC")
    .replace(/\u2044/g, "/")
    .replace(SINGLE_QUOTES, "'")
    .replace(DOUBLE_QUOTES, '"')
    .replace(DASHES, "-")
    .replace(/\\(\d+\/\d+)\\/g, "$1")
    .replace(new RegExp(SHY, "g"), "")
    .replace(/(\p{L})-[ \t]*\r?\n\s*(?=\p{Ll})/gu, `$1${SHY}`)
    .replace(/\s+/g, " ")
    .trim();
}

/** A document as one normalised text, with where each page starts in it. */
export function documentText(pages) {
  let text = "";
  const starts = [];
  for (const p of pages) {
    const t = normalise(p.text);
    if (!t) continue;
    if (text) text += " ";
    starts.push({ page: p.page, at: text.length });
    text += t;
  }
  return { text, starts };
}

/** The page a position of documentText falls on. */
export function pageAt(doc, at) {
  let page = doc.starts[0]?.page ?? 1;
  for (const s of doc.starts) if (s.at <= at) page = s.page;
  return page;
}
