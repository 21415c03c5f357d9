// What a fact rests on, in the words both surfaces use. The rule of caution that follows from it
// is in caution.ts.
import { Basis } from "@permits/proto/common/v1/common";
import { namesOfficialSource } from "./caution.js";
import type { BasisWord, Grounded } from "./grounded.js";

// Strongest first. An agency's own page summarising its permit is the agency's words, so it sits
// above a third party's; like a third party's, it is never verified and never relaxes an answer.
export const BASIS_WORDS: readonly BasisWord[] = ["official-text", "agency-form", "prior-edition", "agency-page", "secondary", "unsourced"];

const BASIS: Record<BasisWord, Basis> = {
  "official-text": Basis.OFFICIAL_TEXT,
  "agency-form": Basis.AGENCY_FORM,
  "prior-edition": Basis.PRIOR_EDITION,
  "agency-page": Basis.AGENCY_PAGE,
  secondary: Basis.SECONDARY,
  unsourced: Basis.UNSOURCED,
};

export function basisOf(b: BasisWord): Basis {
  return BASIS[b];
}

/** The word for a protobuf basis; an unset or unknown one reads as unsourced, the weakest. */
export function basisWordOf(b: Basis | undefined): BasisWord {
  return BASIS_WORDS.find((w) => BASIS[w] === b) ?? "unsourced";
}

/** The weaker of two bases (further down BASIS_WORDS): what a fact built on both rests on. */
export function weakerBasis(a: BasisWord, b: BasisWord): BasisWord {
  return BASIS_WORDS.indexOf(a) >= BASIS_WORDS.indexOf(b) ? a : b;
}

/** Only a read official text or agency form may be verified. */
export function mayBeVerified(b: BasisWord): boolean {
  return b === "official-text" || b === "agency-form";
}

/** A short phrase for texts: "read in the official text", "a third party's statement"... */
export function basisPhrase(f: Grounded & { edition?: string }): string {
  switch (f.basis) {
    case "official-text":
      return "read in the official text";
    case "agency-form":
      return "read in an official agency form";
    case "prior-edition":
      return `read in an earlier edition${f.edition ? ` (${f.edition})` : ""}${namesOfficialSource(f.unchangedBy) ? ", with an official source saying the current edition did not change it" : ""}`;
    case "agency-page":
      return "stated on the agency's own page, not in the permit text";
    case "secondary":
      return "stated only by a third party";
    case "unsourced":
      return "not read in any source";
  }
}

/** A count of facts on one basis at one confidence. */
export interface BasisTally {
  basis: BasisWord;
  confidence: "verified" | "unverified";
  count: number;
}

/**
 * Counts every fact in a raw dataset: any object that carries both `basis` and `confidence`.
 * Sorted by basis (in BASIS_WORDS order), then confidence, so the read-out is stable.
 */
export function tallyFacts(root: unknown): BasisTally[] {
  const counts = new Map<string, number>();
  const walk = (o: unknown): void => {
    if (Array.isArray(o)) {
      for (const x of o) walk(x);
    } else if (o !== null && typeof o === "object") {
      const r = o as Record<string, unknown>;
      if (typeof r.basis === "string" && typeof r.confidence === "string") {
        const k = `${r.basis}|${r.confidence}`;
        counts.set(k, (counts.get(k) ?? 0) + 1);
      }
      for (const v of Object.values(r)) walk(v);
    }
  };
  walk(root);
  const out: BasisTally[] = [];
  for (const b of BASIS_WORDS) {
    for (const c of ["verified", "unverified"] as const) {
      const n = counts.get(`${b}|${c}`);
      if (n) out.push({ basis: b, confidence: c, count: n });
    }
  }
  return out;
}
