// The rule of caution, written once for both engines. Every decision (coverage required or not,
// eligible or not, PCN required or not, a credential needed or not, the NWP verdict) and every
// summary field (overall confidence) is taken through these functions:
// - a fact on any basis may make an answer more cautious (a PCN, a lower limit, a shorter deadline);
// - only a fact that may relax (read in the official text or an agency form, or a prior edition
//   that an official source says the current one did not change) may relax one;
// - a term not held, or a fact the request does not carry, decides nothing: the answer is unknown;
// - values are shown with their confidence; only a value no source states at all is withheld;
// - a summary is verified only when every fact under it is.
import { Confidence } from "@permits/proto/common/v1/common";
import type { Grounded } from "./grounded.js";

const GOV_HOST = String.raw`(?:[a-z0-9-]+\.)+(?:gov|mil|state\.[a-z]{2}\.us)(?::\d+)?`;
const GOV_URL = new RegExp(String.raw`^https?://${GOV_HOST}(?:[/?#]|$)`, "i");
const GOV_URL_IN_TEXT = new RegExp(String.raw`https?://${GOV_HOST}(?:[/?#][^\s)"']*)?(?=[\s)"',;]|\.(?:\s|$)|$)`, "i");

/** Is this an official government URL (a .gov, .mil or state.xx.us host)? */
export function isGovernmentUrl(url: string): boolean {
  return GOV_URL.test(url);
}

/** Does `unchangedBy` name an official source, by its government URL? A third party's page never qualifies. */
export function namesOfficialSource(unchangedBy: string | undefined): boolean {
  return unchangedBy !== undefined && GOV_URL_IN_TEXT.test(unchangedBy);
}

/** May this fact relax an answer? */
export function mayRelax(f: Grounded): boolean {
  return f.basis === "official-text" || f.basis === "agency-form" || (f.basis === "prior-edition" && namesOfficialSource(f.unchangedBy));
}

/** The relaxed outcome where every fact it rests on may relax; otherwise the cautious one. */
export function relaxedOnlyOn<T>(facts: readonly Grounded[], relaxed: T, cautious: T): T {
  return facts.every(mayRelax) ? relaxed : cautious;
}

/** How a quantity fits a limit term. */
export type Fit = "within" | "exceeds" | "unknown";

/**
 * A quantity against a limit: above a limit held on any basis is "exceeds" (cautious); within it
 * is "within" only where the limit may relax. A limit that is not held, or a quantity that was
 * not given, is "unknown": absence is never a fit.
 */
export function fitAgainst(quantity: number | undefined, limit: (Grounded & { value: number }) | undefined): Fit {
  if (limit === undefined || quantity === undefined) return "unknown";
  if (quantity > limit.value) return "exceeds";
  return mayRelax(limit) ? "within" : "unknown";
}

/**
 * One term held from several sources (two limits for the same waters): above any of them excludes
 * (cautious); within one that may relax fits; otherwise unknown.
 */
export function fitAgainstAny(fits: readonly Fit[]): Fit {
  if (fits.includes("exceeds")) return "exceeds";
  return fits.includes("within") ? "within" : "unknown";
}

/** Several terms of one candidate: any excess excludes it; it fits only where every term fits. */
export function combinedFit(fits: readonly Fit[]): Fit {
  if (fits.includes("exceeds")) return "exceeds";
  return fits.length > 0 && fits.every((f) => f === "within") ? "within" : "unknown";
}

/**
 * May a value be shown? Values are shown at their confidence (clients render unverified ones as
 * Unverified); only a value no source states at all is withheld. A value document 1 itself fixes
 * is contract and is shown whatever the basis of its citation (`fixedByContract`).
 */
export function mayShowValue(f: Grounded, fixedByContract = false): boolean {
  return fixedByContract || f.basis !== "unsourced";
}

const verdictCache = new WeakMap<object, boolean>();

/**
 * The overall confidence of an answer from its own citations: verified only when every
 * `confidence` the parts carry (citations, permit, jurisdiction, credential, reasons, triggers)
 * is verified. Frozen parts (shared by many answers) are walked once.
 */
export function allVerified(parts: readonly unknown[]): boolean {
  return parts.every(verifiedThroughout);
}

function verifiedThroughout(o: unknown): boolean {
  if (o === null || typeof o !== "object") return true;
  const frozen = Object.isFrozen(o);
  if (frozen) {
    const known = verdictCache.get(o);
    if (known !== undefined) return known;
  }
  const ok = walk(o);
  if (frozen) verdictCache.set(o, ok);
  return ok;
}

function walk(o: object): boolean {
  if (Array.isArray(o)) {
    for (let i = 0; i < o.length; i++) if (!verifiedThroughout(o[i])) return false;
    return true;
  }
  if (ArrayBuffer.isView(o)) return true;
  const r = o as Record<string, unknown>;
  for (const k in r) {
    const v = r[k];
    if (k === "confidence") {
      if (v !== "verified" && v !== Confidence.VERIFIED) return false;
    } else if (v !== null && typeof v === "object" && !verifiedThroughout(v)) {
      return false;
    }
  }
  return true;
}

/** The confidence word of a summary field over its parts. */
export function overallConfidence(parts: readonly unknown[]): Confidence {
  return allVerified(parts) ? Confidence.VERIFIED : Confidence.UNVERIFIED;
}
