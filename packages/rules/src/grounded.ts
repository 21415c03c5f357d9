// The words for what a fact rests on, and the fields of a fact the rule of caution reads: one
// module that basis.ts and caution.ts both build on, so neither imports the other back.

export type BasisWord = "official-text" | "agency-form" | "prior-edition" | "agency-page" | "secondary" | "unsourced";

/** The fields of a fact that the rule reads. */
export interface Grounded {
  basis: BasisWord;
  /** For a prior-edition fact: the official source saying the current edition did not change it. */
  unchangedBy?: string;
}
