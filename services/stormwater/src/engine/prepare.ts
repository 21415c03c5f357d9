// Builds the precomputed Dataset from validated raw data: every message that does not depend on
// a site's facts is created here once, so a determination only assembles parts.
import { create } from "@bufbuild/protobuf";
import { basisOf, weakerBasis } from "@permits/rules";
import { Confidence } from "@permits/proto/common/v1/common";
import {
  EligibilityScreenSchema,
  JurisdictionSchema,
  PermitRefSchema,
  RequirementSchema,
  ScreenStatus,
  type EligibilityScreen,
  type Jurisdiction,
  type PermitRef,
  type Requirement,
} from "@permits/proto/stormwater/v1/stormwater";
import { credentialMsg, credentialSummaryLine, type Applies } from "./credential.js";
import { fixedByDocument1, STABILIZATION_DAYS, STABILIZATION_DAYS_UNSTATED } from "./contract.js";
import { coversAcres } from "./authority.js";
import { acreRangeText, STATE_STABILIZATION_GOVERNS } from "./texts.js";
import { citationMsg, confidenceOf, kindOf, servedValue, step, valueMsg } from "./messages.js";
import type { RawBasis, RawCitation, RawCredential, RawData, RawJurisdiction, RawPermit, RawRequirement, RawScreen, RawStatePermit } from "./raw.js";
import type { Dataset, PermitTerm, PreparedCgp, PreparedJurisdiction, PreparedStatePermit, Route, RouteKind } from "./types.js";

export const CGP_ID = "cgp-2022";
export const MSGP_ID = "msgp-2021";
const EPA = "U.S. Environmental Protection Agency";

export function prepareDataset(raw: RawData, version: string): Dataset {
  const permits = new Map(raw.permits.permits.map((p) => [p.id, p]));
  const cgpRaw = permits.get(CGP_ID);
  const msgpRaw = permits.get(MSGP_ID);
  if (!cgpRaw || !msgpRaw) throw new Error(`stormwater dataset: permits.json must hold ${CGP_ID} and ${MSGP_ID}`);
  const cgp = prepareCgp(raw, cgpRaw);

  const jurisdictions = new Map<string, PreparedJurisdiction>();
  for (const j of raw.jurisdictions.jurisdictions) {
    if (jurisdictions.has(j.code)) throw new Error(`stormwater dataset: duplicate jurisdiction ${j.code}`);
    jurisdictions.set(j.code, prepareJurisdiction(raw, cgp, j));
  }
  const codes = [...jurisdictions.keys()].sort();
  // Listing order is the code order, so the list is stable whatever the file order.
  const listing = codes.map((c) => jurisdictions.get(c)!.listing);
  const verifiedCount = raw.jurisdictions.jurisdictions.filter((j) => j.confidence === "verified").length;
  return {
    version,
    asOf: raw.manifest.asOf,
    codes,
    jurisdictions,
    listing,
    verifiedCount,
    coverageNote:
      `${codes.length} codes: the 50 states, DC, PR, GU, AS, MP and VI. ${verifiedCount} rows are verified at an official source; ` +
      "an unverified row is still answered, with the agency to confirm with. EPA retains authority in Indian country (input onTribalLand) " +
      "and for federal facilities in CO, DE, VT and WA (input federalFacility).",
    cgp,
    msgp: { ref: permitRef(msgpRaw), raw: msgpRaw, term: federalTerm(msgpRaw) },
    raw,
  };
}

/**
 * What a state permit's reference rests on: its identity (the row's citation) and, where they have
 * their own citations, its dates and its number. The reference claims no more than the weakest.
 */
function referenceGrounds(j: RawJurisdiction, p: RawStatePermit): [PermitRef["confidence"], RawBasis] {
  const own = [p.datesCitation, p.numberCitation].filter((c): c is RawCitation => c != null);
  const verified = j.confidence === "verified" && own.every((c) => c.confidence === "verified");
  return [confidenceOf(verified ? "verified" : "unverified"), own.reduce((b, c) => weakerBasis(b, c.basis), j.basis)];
}

/**
 * Where a jurisdiction's row names no permit number but its state permit holds one (OH, IN, LA),
 * the jurisdiction served with that permit carries it, at no more than the number's own grounds.
 */
function numberedJurisdiction(j: RawJurisdiction, p: RawStatePermit, row: JurisdictionFields): Route["jurisdiction"] | undefined {
  if (j.permitNumber !== null || p.permitNumber === null) return undefined;
  const c = p.numberCitation;
  const f: JurisdictionFields = {
    ...row,
    permitNumber: p.permitNumber,
    confidence: c && c.confidence !== "verified" ? Confidence.UNVERIFIED : row.confidence,
    basis: c ? weakerBasis(row.basis, c.basis) : row.basis,
  };
  return { yes: jurisdictionMsg(j.code, f, j.credential, true), no: jurisdictionMsg(j.code, f, j.credential, false), unknown: jurisdictionMsg(j.code, f, j.credential, undefined) };
}

/** A PermitRef from a permit's identity and the agency that issues it. */
function permitRefOf(
  p: Pick<RawStatePermit, "id" | "name" | "permitNumber" | "version" | "permitUrl" | "effectiveDate" | "expiryDate">,
  issuer: { authority: string; agencyName: string; agencyUrl: string | null },
  confidence: PermitRef["confidence"],
  basis: RawBasis,
): PermitRef {
  return create(PermitRefSchema, {
    id: p.id,
    name: p.name,
    permitNumber: p.permitNumber ?? undefined,
    version: p.version,
    authority: issuer.authority,
    agencyName: issuer.agencyName,
    agencyUrl: issuer.agencyUrl ?? undefined,
    permitUrl: p.permitUrl ?? undefined,
    effectiveDate: p.effectiveDate ?? undefined,
    expiryDate: p.expiryDate ?? undefined,
    confidence,
    basis: basisOf(basis),
  });
}

export function permitRef(p: RawPermit): PermitRef {
  return permitRefOf(p, p, confidenceOf(p.confidence), p.citation.basis);
}

function federalTerm(p: RawPermit): PermitTerm {
  return {
    name: p.name,
    effectiveDate: p.effectiveDate,
    expiryDate: p.expiryDate,
    hasSuccessor: p.successorId !== null,
    issuer: "epa",
    agencyName: p.agencyName,
    expiryCitation: citationMsg(p.expiryCitation ?? p.citation),
  };
}

/** A fixed requirement as served: its value at its confidence, unless no source states it (see servedValue). */
export function fixedRequirement(q: RawRequirement, defaultBecause: string, agency: string, fixedByContract = false): Requirement {
  const { value, detail } = servedValue(q.value ?? null, q.detail ?? "", q.citation, agency, fixedByContract);
  return create(RequirementSchema, {
    id: q.id,
    kind: kindOf(q.kind),
    label: q.label,
    detail,
    value: valueMsg(value),
    citation: citationMsg(q.citation),
    because: q.because ?? defaultBecause,
    unit: q.unit,
  });
}

/**
 * A state permit's requirements, and those of them that apply to a site of a given size: some are
 * set only for small or large sites (TXR150000's Notice of Intent, 5 acres or more). One list per
 * size class, built here: between two consecutive bounds every requirement applies or does not.
 */
function stateRequirements(p: RawStatePermit, agency: string): Pick<PreparedStatePermit, "requirements" | "requirementsFor"> {
  const requirements = p.requirements.map((q) => {
    const sized = q.minAcres !== undefined || q.maxAcresExclusive !== undefined;
    const because = q.because ?? `Applies because coverage under ${p.name} is required for this site${sized ? ` and the permit sets it for sites of ${acreRangeText(q.minAcres, q.maxAcresExclusive)}` : ""}.`;
    // The state's own stabilization rule governs, whatever document 1's federal 5-acre rule says.
    return fixedRequirement({ ...q, because: q.kind === "stabilization" ? `${because} ${STATE_STABILIZATION_GOVERNS}` : because }, because, agency);
  });
  const bounds = [...new Set(p.requirements.flatMap((q) => [q.minAcres, q.maxAcresExclusive]).filter((b): b is number => b !== undefined))].sort((a, b) => a - b);
  if (bounds.length === 0) return { requirements, requirementsFor: () => requirements };
  const byClass = [0, ...bounds].map((low) => requirements.filter((_, i) => coversAcres(p.requirements[i], low)));
  return {
    requirements,
    requirementsFor: (acres) => {
      let k = 0;
      while (k < bounds.length && acres >= bounds[k]) k++;
      return byClass[k];
    },
  };
}

/** The data's stabilization values must be document 1's (contract.ts). */
function checkStabilization(q: RawRequirement): void {
  const want: Record<string, number> = { ...STABILIZATION_DAYS, unknown: STABILIZATION_DAYS_UNSTATED };
  for (const [k, v] of Object.entries(want)) {
    if (q.cases?.[k]?.value !== v) throw new Error(`stormwater dataset: ${q.id} case ${k} must be ${v} days, as document 1 fixes it`);
  }
}

function screen(s: RawScreen, status: ScreenStatus, detail = s.detail): EligibilityScreen {
  return create(EligibilityScreenSchema, { id: s.id, label: s.label, status, detail, citation: citationMsg(s.citation) });
}

function prepareCgp(raw: RawData, cgpRaw: RawPermit): PreparedCgp {
  const r = raw.cgpRequirements;
  const fixed = new Map<string, Requirement>();
  const varying = new Map<string, (typeof r.requirements)[number]>();
  for (const q of r.requirements) {
    if (q.id === "stabilization.complete") checkStabilization(q);
    if (q.variesOn) {
      varying.set(q.id, q);
      continue;
    }
    fixed.set(q.id, fixedRequirement(q, "Applies because coverage under the EPA 2022 CGP is required for this site.", "EPA", fixedByDocument1(q.id)));
  }
  const byId = new Map(r.screens.map((s) => [s.id, s]));
  const need = (id: "esa" | "historic" | "prohibited" | "receiving-water"): RawScreen => {
    const s = byId.get(id);
    if (!s) throw new Error(`stormwater dataset: screen ${id} missing`);
    return s;
  };
  const rw = need("receiving-water");
  const lefj = raw.epaAreas.otherAreas.find((a) => a.codes.includes("*"));
  return {
    ref: permitRef(cgpRaw),
    term: federalTerm(cgpRaw),
    order: r.requirements.map((q) => q.id),
    fixed,
    varying,
    staticScreens: {
      esa: screen(need("esa"), ScreenStatus.ACTION_REQUIRED),
      historic: screen(need("historic"), ScreenStatus.ACTION_REQUIRED),
      prohibited: screen(need("prohibited"), ScreenStatus.ACTION_REQUIRED),
    },
    receivingWater: {
      pass: screen(rw, ScreenStatus.PASS, "Both receiving-water inputs were stated false: the standard inspection frequency and stabilization deadlines apply. " + rw.detail),
      actionRequired: screen(rw, ScreenStatus.ACTION_REQUIRED, "The site discharges to an impaired or Tier 2, 2.5 or 3 water (stated true): the increased inspection frequency and the 7-day stabilization deadline apply. " + rw.detail),
      unknown: screen(rw, ScreenStatus.UNKNOWN, "Not enough input: dischargesToImpairedWater or dischargesToTier2Water was not stated, and it is never assumed false. " + rw.detail),
    },
    citations: {
      coverageCgp: citationMsg(r.citations.coverageThresholdCgp),
      coverageFederal: citationMsg(r.citations.coverageThresholdFederal),
      reducedFrequency: citationMsg(r.citations.reducedFrequency),
      msgpEffective: citationMsg(r.citations.msgpEffective),
      continuation: citationMsg(r.citations.expiredPermitContinuation),
    },
    anyUnverifiedRequirement: r.requirements.some(
      (q) => q.citation.confidence !== "verified" || Object.values(q.cases ?? {}).some((c) => c.citation?.confidence === "unverified"),
    ),
    lefjStep: lefj
      ? step("assumption: lands of exclusive federal jurisdiction", lefj.assumption, citationMsg(lefj.citation))
      : step("assumption: lands of exclusive federal jurisdiction", "Not held."),
  };
}

interface JurisdictionFields {
  name: string;
  npdesAuthorized: boolean | null;
  governingPermitId: string | null;
  permitNumber: string | null;
  permitName: string | null;
  agencyName: string | null;
  agencyUrl: string | null;
  permitUrl: string | null;
  confidence: Confidence;
  basis: RawBasis;
  sourceUrl: string | null;
  note: string | null;
}

function jurisdictionMsg(code: string, f: JurisdictionFields, cred: RawCredential, applies: Applies): Jurisdiction {
  return create(JurisdictionSchema, {
    code,
    name: f.name,
    npdesAuthorized: f.npdesAuthorized ?? undefined,
    governingPermitId: f.governingPermitId ?? undefined,
    permitNumber: f.permitNumber ?? undefined,
    permitName: f.permitName ?? undefined,
    agencyName: f.agencyName ?? undefined,
    agencyUrl: f.agencyUrl ?? undefined,
    permitUrl: f.permitUrl ?? undefined,
    confidence: f.confidence,
    basis: basisOf(f.basis),
    sourceUrl: f.sourceUrl ?? undefined,
    note: f.note ?? undefined,
    credential: credentialMsg(cred, applies),
  });
}

function routeOf(
  kind: RouteKind,
  governing: Route["governing"],
  code: string,
  f: JurisdictionFields,
  cred: RawCredential,
  authorityStep: Route["authorityStep"],
  extraSteps: Route["extraSteps"],
  statePermits: Route["statePermits"],
): Route {
  const credCitation = cred.sourceUrl
    ? citationMsg({ sourceCitation: cred.sourceCitation ?? "Not verified", sourceUrl: cred.sourceUrl, quote: cred.quote, confidence: cred.confidence, basis: cred.basis, checkedOn: cred.checkedOn })
    : undefined;
  return {
    kind,
    governing,
    code,
    name: f.name,
    confidence: f.confidence,
    authorityStep,
    extraSteps,
    credential: cred,
    credentialStep: {
      yes: step("preparer credential", credentialSummaryLine(cred, true), credCitation),
      no: step("preparer credential", credentialSummaryLine(cred, false), credCitation),
      unknown: step("preparer credential", credentialSummaryLine(cred, undefined), credCitation),
    },
    jurisdiction: {
      yes: jurisdictionMsg(code, f, cred, true),
      no: jurisdictionMsg(code, f, cred, false),
      unknown: jurisdictionMsg(code, f, cred, undefined),
    },
    agencyName: f.agencyName ?? EPA,
    note: f.note,
    statePermits,
  };
}

/** An unverified route never shows a gate other than unknown. */
function unknownCredential(name: string, confirmWith: string, extra: string): RawCredential {
  return {
    gate: "unknown",
    preparer: false,
    trigger: "none",
    summary: `The ${name} data is unverified, so its credential gate is unknown and must not be read as open.${extra} Confirm with ${confirmWith}.`,
    routes: [],
    stateCourseRequired: null,
    sourceCitation: null,
    sourceUrl: null,
    confidence: "unverified",
    basis: "unsourced",
  };
}

function confirmationFor(list: { codes: string[]; citation: RawCitation }[], code: string): RawCitation | undefined {
  return list.find((c) => c.codes.includes(code))?.citation;
}

function prepareJurisdiction(raw: RawData, cgp: PreparedCgp, j: RawJurisdiction): PreparedJurisdiction {
  const areas = raw.epaAreas;
  const cgpCred = raw.cgpRequirements.inspectorCredential;
  const rowConfidence = confidenceOf(j.confidence);
  const authCitation = j.authorityCitation ? citationMsg(j.authorityCitation) : undefined;
  const rowFields: JurisdictionFields = {
    name: j.name,
    npdesAuthorized: j.npdesAuthorized,
    governingPermitId: j.governingPermitId,
    permitNumber: j.permitNumber,
    permitName: j.permitName,
    agencyName: j.agencyName,
    agencyUrl: j.agencyUrl,
    permitUrl: j.permitUrl,
    confidence: rowConfidence,
    basis: j.basis,
    sourceUrl: j.sourceUrl,
    note: j.note,
  };

  // Base route: the jurisdiction's own arrangement (an EPA area or the state's programme).
  const extra = areas.otherAreas
    .filter((a) => a.codes.includes(j.code))
    .map((a) => step(`assumption: ${a.label}`, a.assumption, citationMsg(a.citation)));
  let base: Route;
  if (j.authority === "epa") {
    const result = `${j.name}: EPA is the NPDES permitting authority, so the EPA 2022 Construction General Permit governs.` +
      (j.confidence === "verified" ? "" : ` Unverified: ${j.note ?? ""}`);
    base = routeOf("epa-area", "cgp", j.code, rowFields, j.credential, step("permitting authority", result, authCitation), extra, []);
  } else {
    const statePermits = j.statePermits.map((p): PreparedStatePermit => ({
      raw: p,
      ref: permitRefOf(p, { authority: j.agencyShort, agencyName: j.agencyName, agencyUrl: j.agencyUrl }, ...referenceGrounds(j, p)),
      term: {
        name: p.name,
        effectiveDate: p.effectiveDate,
        expiryDate: p.expiryDate,
        hasSuccessor: false,
        issuer: "state",
        agencyName: j.agencyName,
        expiryCitation: p.datesCitation ? citationMsg(p.datesCitation) : undefined,
        replacementProposed: p.replacementProposed ? citationMsg(p.replacementProposed) : undefined,
      },
      ...stateRequirements(p, j.agencyName),
      jurisdiction: numberedJurisdiction(j, p, rowFields),
    }));
    const governing = j.confidence === "verified" && statePermits.length > 0 ? "state" : "none";
    const result = governing === "state"
      ? `${j.name} runs its own NPDES construction stormwater programme through ${j.agencyName}; the governing permit is ${j.permitName}.`
      : `${j.name}: the state-level permitting authority is ${j.agencyName}, but the current construction permit is not verified. ${j.note ?? ""}`;
    base = routeOf("state", governing, j.code, rowFields, j.credential, step("permitting authority", result, authCitation), extra, statePermits);
  }

  // Tribal route: EPA keeps authority in Indian country everywhere.
  const ic = areas.indianCountry;
  const tribalCitation = confirmationFor(ic.confirmations, j.code) ?? ic.defaultCitation;
  const tribalVerified = tribalCitation.confidence === "verified";
  const listed = ic.listedStates.includes(j.code);
  const tribalName = `${j.name} (Indian country)`;
  const tribalNote = tribalVerified
    ? null
    : `EPA is the permitting authority in Indian country per the Federal Register summary of the 2022 CGP ("most Indian country lands"), read only on a non-government copy; Appendix B was not read.` +
      (listed ? "" : ` ${ic.unlistedNote}`) + " Confirm with the EPA regional office for this area.";
  const tribalCred = tribalVerified ? cgpCred : unknownCredential(tribalName, "the EPA regional office", "");
  const tribal = routeOf(
    "tribal",
    "cgp",
    j.code,
    {
      name: tribalName, npdesAuthorized: false, governingPermitId: CGP_ID, permitNumber: null,
      permitName: cgp.ref.name, agencyName: EPA, agencyUrl: null, permitUrl: cgp.ref.permitUrl ?? null,
      confidence: confidenceOf(tribalCitation.confidence), basis: tribalCitation.basis, sourceUrl: tribalCitation.sourceUrl, note: tribalNote,
    },
    tribalCred,
    step(
      "permitting authority",
      `onTribalLand is true: EPA keeps NPDES authority in Indian country even where the state runs its own programme, so the EPA 2022 Construction General Permit governs.` +
        (listed ? "" : ` ${ic.unlistedNote}`),
      citationMsg(tribalCitation),
    ),
    [],
    [],
  );

  // Federal-facility route: only in the states Appendix B names.
  let federal: Route | null = null;
  const ff = areas.federalFacilities;
  if (ff.codes.includes(j.code)) {
    const c = confirmationFor(ff.confirmations, j.code) ?? ff.defaultCitation;
    const verified = c.confidence === "verified";
    const name = `${j.name} (federal facility)`;
    federal = routeOf(
      "federal-facility",
      "cgp",
      j.code,
      {
        name, npdesAuthorized: false, governingPermitId: CGP_ID, permitNumber: null,
        permitName: cgp.ref.name, agencyName: EPA, agencyUrl: null, permitUrl: cgp.ref.permitUrl ?? null,
        confidence: confidenceOf(c.confidence), basis: c.basis, sourceUrl: c.sourceUrl,
        note: verified ? null : `Federal facilities in ${j.name} are listed as an EPA area only by third-party summaries of Appendix B. Confirm with the EPA regional office.`,
      },
      verified ? cgpCred : unknownCredential(name, "the EPA regional office", ""),
      step(
        "permitting authority",
        `federalFacility is true: federal facilities in ${j.name} are an EPA area under the 2022 CGP, so EPA is the permitting authority and the EPA 2022 Construction General Permit governs.`,
        citationMsg(c),
      ),
      [],
      [],
    );
  }

  return {
    raw: j,
    listing: jurisdictionMsg(j.code, rowFields, j.credential, undefined),
    base,
    tribal,
    federal,
  };
}

