// The plan document as data: what both renderers (DOCX and PDF) draw, so the two say the same thing.

/** One line of the plan. Every stated value carries where it comes from. */
export type Block =
  | { kind: "heading"; text: string }
  | { kind: "text"; text: string }
  | { kind: "notice"; text: string }
  /** A value: label, the value in words, "Verified"/"Unverified" where it rests on a source, and the source line. */
  | { kind: "value"; label: string; value: string; marker: "Verified" | "Unverified" | null; source: string }
  /** What the service cannot know: a marked blank for the preparer. */
  | { kind: "blank"; label: string; text: string };

export interface PlanSection {
  heading: string;
  blocks: Block[];
}

export interface PlanModel {
  title: string;
  /** Shown in the header of every page where a credentialed preparer must review and sign; else null. */
  draftBanner: string | null;
  /** The footer of every page (the page number is added by the renderer). */
  footer: string;
  firstPage: Block[];
  sections: PlanSection[];
  /** Fixed from the input (preparedOn), so the same input gives the same bytes. */
  createdAt: Date;
  meta: { siteName: string; planVersion: number; datasetVersion: string; permitVersion: string | null };
}
