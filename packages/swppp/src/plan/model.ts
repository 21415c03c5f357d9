// The plan document (SWPPP) as a model: the sections of EPA's SWPPP template filled from the site
// and its determination snapshot. Every value carries its source and its confidence; what the
// service cannot know is a marked blank; a permit not read is said to be so, naming its agency.
import { Confidence, type Citation } from "@permits/proto/common/v1/common";
import { Coverage, CredentialGate, RequirementKind, ScreenStatus, type CredentialResult, type Determination } from "@permits/proto/stormwater/v1/stormwater";
import { assertDate } from "../dates.js";
import { authorityOf, cited, heldRules, valueWords, type Authority, type Cited, type HeldRule } from "../rules-held.js";
import { basisWordOf } from "@permits/rules";
import { NOTICES, UNVERIFIED, VERIFIED, blank, citationLine, say } from "../texts.js";
import type { Block, PlanModel, PlanSection } from "./model-types.js";
import { BLANKS, HEADINGS, plan } from "./words.js";

export interface PlanContact {
  name: string;
  role?: string | null;
  phone?: string | null;
  email?: string | null;
}

export interface PlanSite {
  name: string;
  address?: string | null;
  latitude?: number | null;
  longitude?: number | null;
  operator?: PlanContact | null;
  contacts?: readonly PlanContact[];
}

export interface PlanInput {
  site: PlanSite;
  /** The determination snapshot the plan is made against (its datasetVersion and permit.version are printed). */
  determination: Determination;
  /** The state's preparer-credential answer (GetCredentialGate); without it the determination's gate decides, cautiously. */
  credential?: CredentialResult | null;
  /** The plan's version number at the site. */
  version: number;
  /** yyyy-mm-dd: the document's date, from the caller's clock; fixes the files' creation dates. */
  preparedOn: string;
  /** The inspection frequency the operator chose where the permit offers two (a requirement id). */
  frequencyOption?: string | null;
}

const SECTION_OF: Partial<Record<RequirementKind, keyof typeof HEADINGS>> = {
  [RequirementKind.BUFFER]: "discharge",
  [RequirementKind.PRACTICE]: "controls",
  [RequirementKind.INSPECTION]: "inspections",
  [RequirementKind.CORRECTIVE_ACTION]: "inspections",
  [RequirementKind.MONITORING]: "inspections",
  [RequirementKind.STABILIZATION]: "stabilization",
  [RequirementKind.RECORDKEEPING]: "records",
  [RequirementKind.FILING]: "records",
};

const COVERAGE_WORDS: Record<number, string> = {
  [Coverage.REQUIRED]: "Permit coverage required",
  [Coverage.NOT_REQUIRED]: "Permit coverage not required on the facts given",
  [Coverage.VERIFY]: "To be confirmed with the agency",
};

const SCREEN_WORDS: Record<number, string> = {
  [ScreenStatus.PASS]: "Passes",
  [ScreenStatus.ACTION_REQUIRED]: "Action required",
  [ScreenStatus.INELIGIBLE]: "Not eligible",
  [ScreenStatus.UNKNOWN]: "Not known from the facts given",
};

function valueBlock(label: string, value: string, c: Cited | null): Block {
  if (!c) return { kind: "value", label, value, marker: null, source: plan.entered };
  return { kind: "value", label, value, marker: c.confidence === "verified" ? VERIFIED : UNVERIFIED, source: citationLine(c) };
}

/** A fact of the document itself (its version, date, dataset): no source line. */
const fact = (label: string, value: string): Block => ({ kind: "value", label, value, marker: null, source: "" });

const entered = (label: string, value: string | null | undefined, blankLabel = label): Block =>
  value ? valueBlock(label, value, null) : { kind: "blank", label: blankLabel, text: blank() };

const blankBlock = (label: string): Block => ({ kind: "blank", label, text: blank() });

function tri(v: boolean | undefined): string {
  return v === undefined ? plan.notStated : v ? plan.yes : plan.no;
}

function ruleBlocks(r: HeldRule): Block[] {
  return [
    { kind: "heading", text: r.label },
    { kind: "text", text: r.detail },
    valueBlock("Value", valueWords(r) ?? plan.noValue, r.citation),
    ...(r.because ? [{ kind: "text" as const, text: `Why it applies to this site: ${r.because}` }] : []),
  ];
}

function stepCitation(d: Determination, step: string): Citation | undefined {
  return d.derivation.find((s) => s.step === step)?.citation;
}

function permitCited(d: Determination): Cited | null {
  const p = d.permit;
  if (!p) return null;
  return { ...cited(undefined), sourceCitation: "", sourceUrl: p.permitUrl ?? "", confidence: p.confidence === Confidence.VERIFIED ? "verified" : "unverified", basis: basisWordOf(p.basis) };
}

function credentialCited(d: Determination, c: CredentialResult | null | undefined): Cited {
  const src = c ?? d.jurisdiction?.credential;
  return { ...cited(undefined), sourceCitation: src?.sourceCitation || "Not verified", sourceUrl: src?.sourceUrl ?? "", confidence: src?.confidence === Confidence.VERIFIED ? "verified" : "unverified", basis: basisWordOf(src?.basis), checkedOn: src?.checkedOn ?? null };
}

/** The draft banner: from the credential answer where given, else from the determination's gate (gated or conditional, not ruled out). */
function bannerOf(d: Determination, c: CredentialResult | null | undefined): string | null {
  const state = d.jurisdiction?.name ?? d.input?.state ?? "the state";
  if (c) return c.documentStatus === "draft_for_credentialed_preparer" ? plan.banner(plan.bannerWho(c.routes, state)) : null;
  const g = d.jurisdiction?.credential;
  if (!g || (g.gate !== CredentialGate.GATED && g.gate !== CredentialGate.CONDITIONAL) || g.appliesToThisSite === false) return null;
  return plan.banner(plan.bannerWho(g.routes, state));
}

function firstPage(input: PlanInput, a: Authority): Block[] {
  const d = input.determination;
  const extra = d.notices.filter((n) => !(NOTICES as readonly string[]).includes(n));
  return [
    { kind: "heading", text: plan.noticesHeading },
    ...NOTICES.map((text): Block => ({ kind: "notice", text })),
    { kind: "text", text: plan.howToRead },
    { kind: "heading", text: plan.restsOnHeading },
    valueBlock("Site", input.site.name, null),
    fact("Plan version", String(input.version)),
    fact("Prepared on", input.preparedOn),
    fact("Dataset version", d.datasetVersion),
    d.permit ? valueBlock("Governing permit", `${d.permit.name}; version: ${d.permit.version}`, permitCited(d)) : { kind: "text", text: a.emptyBecause ? plan.noPermit : say.notRead(a) },
    ...(a.notRead && !a.emptyBecause && d.permit ? [{ kind: "text" as const, text: say.notRead(a) }] : []),
    ...extra.map((text): Block => ({ kind: "notice", text })),
  ];
}

function sectionsOf(input: PlanInput, a: Authority): PlanSection[] {
  const d = input.determination;
  const site = input.site;
  const s = d.input;
  const rules = heldRules(d);
  const kinds = new Map(d.requirements.map((r) => [r.id, r.kind]));
  const rulesIn = (key: keyof typeof HEADINGS) => rules.filter((r) => SECTION_OF[kinds.get(r.id) ?? RequirementKind.UNSPECIFIED] === key);
  const held = (key: keyof typeof HEADINGS): Block[] => {
    const rs = rulesIn(key);
    return rs.length > 0 ? rs.flatMap(ruleBlocks) : [{ kind: "text", text: plan.noneHeldHere(a) }];
  };
  const contacts = site.contacts ?? [];
  const cred = input.credential ?? null;
  const credSummary = cred?.summary ?? d.jurisdiction?.credential?.summary ?? "";
  const coords = site.latitude != null && site.longitude != null ? `${site.latitude}, ${site.longitude}` : null;
  const acres = (n: number | undefined) => (n === undefined ? plan.notStated : `${n} acres`);
  const option = rules.find((r) => r.id === input.frequencyOption);
  const hasOptions = rules.some((r) => r.id.startsWith("inspection.frequency.option"));
  const team: Block[] = contacts.length > 0
    ? contacts.map((c) => valueBlock(c.role || "Team member", [c.name, c.phone, c.email].filter(Boolean).join(", "), null))
    : [blankBlock(BLANKS.team)];
  return [
    { heading: HEADINGS.operators, blocks: [
      entered("Operator", site.operator ? [site.operator.name, site.operator.role, site.operator.phone, site.operator.email].filter(Boolean).join(", ") : null, BLANKS.operator),
      ...team,
      blankBlock(BLANKS.inspectors),
    ] },
    { heading: HEADINGS.site, blocks: [
      valueBlock("Site name", site.name, null),
      entered("Address", site.address, BLANKS.address),
      ...(coords ? [valueBlock("Latitude, longitude", coords, null)] : []),
      valueBlock("State or territory", `${d.jurisdiction?.name ?? ""} (${s?.state ?? ""})`, cited(stepCitation(d, "permitting authority"))),
      valueBlock("Activity", s?.activity ?? plan.notStated, null),
      valueBlock("Total acres disturbed", acres(s?.disturbedAcres), null),
      valueBlock("Most acres disturbed at one time", acres(s?.maxDisturbedAcresAtOneTime), null),
      valueBlock("Part of a larger common plan", tri(s?.partOfLargerPlan), null),
      valueBlock("Coverage", `${COVERAGE_WORDS[d.coverage] ?? plan.notStated}. ${d.coverageReason}`, cited(stepCitation(d, "coverage threshold"))),
      d.permit
        ? valueBlock("Governing permit", [d.permit.name, d.permit.permitNumber && `number ${d.permit.permitNumber}`, `issued by ${a.agency}`, d.permit.effectiveDate && `effective ${d.permit.effectiveDate}`, d.permit.expiryDate && `expires ${d.permit.expiryDate}`].filter(Boolean).join("; "), permitCited(d))
        : { kind: "text", text: say.notRead(a) }, // the engine's notice where it gives one
      ...(d.jurisdiction?.note ? [{ kind: "text" as const, text: d.jurisdiction.note }] : []),
    ] },
    { heading: HEADINGS.discharge, blocks: [
      blankBlock(BLANKS.receivingWaters),
      valueBlock("Discharges to a sediment- or nutrient-impaired water", tri(s?.dischargesToImpairedWater), null),
      valueBlock("Discharges to a Tier 2, 2.5 or 3 water", tri(s?.dischargesToTier2Water), null),
      ...d.eligibilityScreens.flatMap((e): Block[] => [{ kind: "heading", text: e.label }, valueBlock(SCREEN_WORDS[e.status] ?? plan.notStated, e.detail, cited(e.citation))]),
      ...held("discharge"),
    ] },
    { heading: HEADINGS.construction, blocks: [
      blankBlock(BLANKS.description),
      entered("Start date", s?.startDate, "Start date"),
      entered("End date", s?.endDate, "End date"),
      blankBlock(BLANKS.sequence),
      blankBlock(BLANKS.siteMap),
    ] },
    { heading: HEADINGS.controls, blocks: [
      blankBlock(BLANKS.erosion), blankBlock(BLANKS.sediment), blankBlock(BLANKS.stabilization), blankBlock(BLANKS.pollution), blankBlock(BLANKS.dewatering),
      ...(rulesIn("controls").length > 0 ? held("controls") : []),
    ] },
    { heading: HEADINGS.inspections, blocks: [
      ...(hasOptions ? [option ? valueBlock(plan.frequencyChosen, `${option.label}: ${valueWords(option) ?? plan.noValue}`, option.citation) : blankBlock(plan.frequencyChosen)] : []),
      blankBlock(BLANKS.rainGauge),
      ...held("inspections"),
    ] },
    { heading: HEADINGS.stabilization, blocks: held("stabilization") },
    { heading: HEADINGS.records, blocks: [blankBlock(BLANKS.recordsKept), ...held("records")] },
    { heading: HEADINGS.certification, blocks: [
      ...(credSummary ? [valueBlock(plan.credentialLine, credSummary, credentialCited(d, cred))] : []),
      blankBlock(plan.certificationStatement),
      blankBlock(BLANKS.name), blankBlock(BLANKS.title), blankBlock(BLANKS.signature), blankBlock(BLANKS.date),
    ] },
  ];
}

export function buildPlanModel(input: PlanInput): PlanModel {
  assertDate(input.preparedOn, "preparedOn");
  if (!Number.isInteger(input.version) || input.version < 1) throw new RangeError(`the plan version must be a whole number 1 or more, got ${input.version}`);
  if (!input.site.name.trim()) throw new RangeError("the site needs a name");
  const d = input.determination;
  const a = authorityOf(d);
  const permitVersion = d.permit?.version ?? null;
  return {
    title: plan.title(input.site.name),
    draftBanner: bannerOf(d, input.credential),
    footer: plan.footer(input.site.name, input.version, d.datasetVersion, permitVersion),
    firstPage: firstPage(input, a),
    sections: sectionsOf(input, a),
    createdAt: new Date(`${input.preparedOn}T00:00:00.000Z`),
    meta: { siteName: input.site.name, planVersion: input.version, datasetVersion: d.datasetVersion, permitVersion },
  };
}
