// Builds the precomputed Dataset from validated raw data: every message that does not depend on
// a site's facts is created here once, so a determination only assembles parts.
import { create } from "@bufbuild/protobuf";
import { basisOf } from "@permits/rules";
import {
  EligibilityScreenSchema,
  JurisdictionSchema,
  ScreenStatus,
  type EligibilityScreen,
  type Jurisdiction,
  type PermitRef,
  type Requirement,
} from "@permits/proto/stormwater/v1/stormwater";
import { credentialMsg, credentialSummaryLine, type Applies } from "./credential.js";
import { fixedByDocument1, STABILIZATION_DAYS, STABILIZATION_DAYS_UNSTATED } from "./contract.js";
import { citationMsg, confidenceOf, fixedRequirement, permitRefOf, step } from "./messages.js";
import { prepareStatePermit } from "./state-permits.js";
import type { RawCitation, RawCredential, RawData, RawJurisdiction, RawPermit, RawRequirement, RawScreen } from "./raw.js";
import type { Dataset, JurisdictionFields, PermitTerm, PreparedCgp, PreparedJurisdiction, Route, RouteKind } from "./types.js";

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
      `${codes.length} codes: the 50 states, DC, PR, GU, AS, MP and VI. ${verifiedCount} are verified at an official source; ` +
      "one that is not is still answered, with the agency to confirm with. EPA retains authority in Indian country (input onTribalLand) " +
      "and for federal facilities in CO, DE, VT and WA (input federalFacility).",
    cgp,
    msgp: { ref: permitRef(msgpRaw), raw: msgpRaw, term: federalTerm(msgpRaw) },
    raw,
  };
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

/** The jurisdiction as served, by whether the credential applies to the site. */
function jurisdictionVariants(code: string, f: JurisdictionFields, cred: RawCredential): Route["jurisdiction"] {
  return { yes: jurisdictionMsg(code, f, cred, true), no: jurisdictionMsg(code, f, cred, false), unknown: jurisdictionMsg(code, f, cred, undefined) };
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
    jurisdiction: jurisdictionVariants(code, f, cred),
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
    summary: `Whether a credential (a certified plan preparer or inspector) is required in ${name} is not confirmed: do not assume none is.${extra} Confirm with ${confirmWith}.`,
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
    const statePermits = j.statePermits.map((p) => prepareStatePermit(j, p, rowFields, (f) => jurisdictionVariants(j.code, f, j.credential)));
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

