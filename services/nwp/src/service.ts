// Connect handlers for NwpService. Lookup responses are built once (the dataset never changes
// while the process runs); determinations are computed by the pure engine and wrapped here.
import { create, type DescMessage, type MessageInitShape, type MessageShape } from "@bufbuild/protobuf";
import { basisOf, type Changelog, derivedOnce, invalidArgument, resourceNotFound, serviceChangelog, ViolationReason } from "@permits/rules";
import type { ServiceImpl } from "@connectrpc/connect";
import { BadRequestSchema, Confidence } from "@permits/proto/common/v1/common";
import { coverageOf, nwpSnapshot } from "./holdings.js";
import { SharedLists } from "./shared-lists.js";
import {
  ActivitySchema, BatchItemSchema, DeterminationSchema, DistrictLayerSchema, ProvenanceSchema, StateLayerSchema, DetermineBatchResponseSchema, DetermineResponseSchema, DistrictSchema,
  GetChangesResponseSchema, GetDistrictResponseSchema, GetPermitResponseSchema, GetStateCertificationResponseSchema, ListActivitiesResponseSchema,
  ListDistrictsResponseSchema, ListPermitsResponseSchema, NwpService, PermitSchema, ProjectInputSchema, RulesetSchema,
  StateCertificationSchema, Verdict,
} from "@permits/proto/nwp/v1/nwp";
import {
  CERTIFIER_NOT_HELD, decide, validateProject, violationMessage,
  type Confidence as ConfidenceText, type Dataset, type DeterminationOut, type NormalizedInput, type RawLimit, type RawNotification, type VerdictId,
} from "./engine/index.js";

export const MAX_BATCH = 100;

const CONFIDENCE: Record<ConfidenceText, Confidence> = { verified: Confidence.VERIFIED, unverified: Confidence.UNVERIFIED };
const VERDICT: Record<VerdictId, Verdict> = {
  "nwp-likely": Verdict.NWP_LIKELY,
  "nwp-with-pcn": Verdict.NWP_WITH_PCN,
  "individual-permit-likely": Verdict.INDIVIDUAL_PERMIT_LIKELY,
  "insufficient-data": Verdict.INSUFFICIENT_DATA,
};

type DeterminationInit = MessageInitShape<typeof DeterminationSchema>;

/** `parts: false` leaves out the parts a batch shares (pcn, layers, coverage gaps, provenance: see SharedLists). */
export function toDeterminationInit(d: DeterminationOut, parts = true): DeterminationInit {
  return {
    verdict: VERDICT[d.verdict],
    headline: d.headline,
    confidence: CONFIDENCE[d.confidence],
    candidates: d.candidates.map((c) => ({
      number: c.number,
      title: c.title,
      eligible: c.eligible ?? undefined,
      reasons: c.reasons.map((r) => ({ ...r, confidence: CONFIDENCE[r.confidence], basis: basisOf(r.basis), checkedOn: r.checkedOn ?? undefined })),
    })),
    pcn: parts ? pcnInit(d) : undefined,
    districtLayer: parts ? shared(DistrictLayerSchema, d.districtLayer) : undefined,
    stateLayer: parts ? shared(StateLayerSchema, d.stateLayer) : undefined,
    coverageGaps: parts ? d.coverageGaps : [],
    provenance: parts ? provenanceInit(d) : [],
  };
}

/** Where a batch item's shared parts are in the batch's tables, each added on first use. */
function sharedPartsOf(lists: SharedLists, d: DeterminationOut) {
  return {
    sharedPcn: lists.pcnOf(d.pcn, () => pcnInit(d)),
    sharedDistrictLayer: lists.districtLayerOf(d.districtLayer, () => shared(DistrictLayerSchema, d.districtLayer)),
    sharedStateLayer: lists.stateLayerOf(d.stateLayer, () => shared(StateLayerSchema, d.stateLayer)),
    sharedCoverageGaps: lists.gaps(d.coverageGaps),
    sharedProvenance: lists.provenanceOf(d.provenance, () => provenanceInit(d)),
  };
}

function pcnInit(d: DeterminationOut): NonNullable<DeterminationInit["pcn"]> {
  return {
    required: d.pcn.required,
    reviewDays: d.pcn.reviewDays,
    because: d.pcn.because,
    triggers: d.pcn.triggers.map((t) => ({ ...t, confidence: CONFIDENCE[t.confidence], basis: basisOf(t.basis) })),
  };
}

function provenanceInit(d: DeterminationOut): DeterminationInit["provenance"] {
  return d.provenance.map((p) => shared(ProvenanceSchema, p));
}

/**
 * A part of the frozen dataset as its message, built once and shared by every answer (so the
 * gateway serialises it once, see derivedOnce); a part built for this request, as it is.
 */
function shared<S extends DescMessage>(schema: S, part: object): MessageShape<S> | object {
  return Object.isFrozen(part) ? derivedOnce(part, schema.typeName, () => create(schema, part as MessageInitShape<S>)) : part;
}

function inputInit(i: NormalizedInput): MessageInitShape<typeof ProjectInputSchema> {
  return { ...i };
}

function limitInit(l: RawLimit | null | undefined) {
  if (!l) return undefined;
  const scope = l.appliesTo.length === 4 ? "all resource types" : l.appliesTo.join(", ");
  return { value: l.value, unit: l.unit, derivation: `Applies to ${scope}. ${l.derivation}`, sourceUrl: l.sourceUrl, confidence: CONFIDENCE[l.confidence], basis: basisOf(l.basis), checkedOn: l.checkedOn };
}

function termsInit(t: RawNotification) {
  return { held: t.held, summary: t.summary, sourceUrl: t.sourceUrl, confidence: CONFIDENCE[t.confidence], basis: basisOf(t.basis), checkedOn: t.checkedOn };
}

function buildLookups(ds: Dataset) {
  const r = ds.ruleset;
  const ruleset = create(RulesetSchema, {
    id: r.id, name: r.name, federalRegisterCitation: r.federalRegisterCitation,
    effectiveDate: r.effectiveDate, expiryDate: r.expiryDate, sourceUrl: r.sourceUrl,
  });
  const permits = ds.raw.permits.map((p) => {
    // The proto carries one acreage limit; further (e.g. tidal) limits are spelled out in notes.
    const extra = p.acreageLimits.slice(1).map((l) => `Also held: ${l.display} for ${l.appliesTo.join(", ")} waters (${l.confidence}). ${l.derivation}`);
    return create(PermitSchema, {
      number: p.number, title: p.title, sourceUrl: p.sourceUrl, confidence: CONFIDENCE[p.confidence],
      acreageLimit: limitInit(p.acreageLimits[0]),
      streamBedLinearFeetLimit: limitInit(p.streamBedLinearFeetLimit),
      pcnConditions: p.pcnConditions.map((c) => ({
        kind: c.kind, threshold: c.threshold, unit: c.unit, description: c.description, sourceUrl: c.sourceUrl,
        confidence: CONFIDENCE[c.confidence], basis: basisOf(c.basis), checkedOn: c.checkedOn,
      })),
      notification: termsInit(p.notification),
      limitTerms: termsInit(p.limitTerms),
      notes: [p.titleBasis, ...extra, ...p.unscreenedPcnTriggers, ...(p.suspendedIn ? [p.suspendedIn.description] : []), ...p.notes,
        ...(p.acreageLimits.length === 0 ? ["No acreage limit for this permit is on record here."] : [])],
    });
  });
  const districts = ds.raw.districts.map((d) => create(DistrictSchema, {
    code: d.code, name: d.name, division: `${d.division} (${d.divisionName})`, states: d.states, regulatoryUrl: d.regulatoryUrl,
    conditionsCompiled: d.conditionsCompiled, regionalConditions: d.regionalConditions,
    note: [`Coverage: ${d.coverage}`, d.note].filter(Boolean).join(" "), confidence: CONFIDENCE[d.confidence],
  }));
  const states = ds.raw.states.map((s) => create(StateCertificationSchema, {
    code: s.code, name: s.name, certifyingAuthority: s.certifyingAuthority ?? CERTIFIER_NOT_HELD,
    certificationCompiled: s.certificationCompiled, authorityUrl: s.authorityUrl,
    known: [...s.known.map((k) => `${k.text} [${k.confidence}${k.sourceUrl ? `; ${k.sourceUrl}` : ""}]`),
      ...(s.handlingOffice ? [`${s.handlingOffice.text} [${s.handlingOffice.confidence}; ${s.handlingOffice.sourceUrl}]`] : [])],
    sourceUrl: s.sourceUrl, confidence: CONFIDENCE[s.confidence], note: s.note,
  }));
  const activities = ds.raw.activities.map((a) => create(ActivitySchema, { id: a.id, label: a.label, nwpNumbers: a.nwpNumbers, confidence: a.confidence }));
  return {
    ruleset,
    permitByNumber: new Map(permits.map((p) => [p.number, p])),
    districtByCode: new Map(districts.map((d) => [d.code, d])),
    stateByCode: new Map(states.map((s) => [s.code, s])),
    listPermits: create(ListPermitsResponseSchema, { ruleset, permits }),
    listDistricts: create(ListDistrictsResponseSchema, { ruleset, districts }),
    listActivities: create(ListActivitiesResponseSchema, { ruleset, activities }),
  };
}

/** `today()` is the evaluation date of every determination (see evaluationDateOf; tests pin it). */
/** `determined`: told the verdict of each determination, batch items included (metrics). */
/** `changelog`: the released snapshots (data/changelog/nwp) and this dataset as the newest version. */
export function createNwpService(
  ds: Dataset,
  today: () => string,
  determined: (verdict: string) => void = () => {},
  changelog: Changelog = serviceChangelog("nwp", nwpSnapshot(ds)),
): ServiceImpl<typeof NwpService> {
  const verdictOf = (d: { verdict: Verdict } | undefined) => determined(Verdict[d?.verdict ?? Verdict.UNSPECIFIED].toLowerCase());
  const L = buildLookups(ds);
  const coverage = coverageOf(ds, L.ruleset); // static: built once
  return {
    getCoverage() {
      return coverage;
    },
    getChanges(req) {
      return create(GetChangesResponseSchema, { changes: changelog.since(req.since) });
    },
    determine(req) {
      const v = validateProject(ds, req.project);
      if (!v.ok) throw invalidArgument(violationMessage(v.violations), v.violations);
      const res = create(DetermineResponseSchema, {
        determination: toDeterminationInit(decide(ds, v.input, today())),
        input: inputInit(v.input),
        ruleset: L.ruleset,
      });
      verdictOf(res.determination);
      return res;
    },
    determineBatch(req) {
      if (req.projects.length > MAX_BATCH) {
        throw invalidArgument(`A batch holds at most ${MAX_BATCH} projects; this one has ${req.projects.length}.`, [{
          field: "projects",
          description: `at most ${MAX_BATCH} projects per batch; got ${req.projects.length}`,
          reason: ViolationReason.MALFORMED,
        }]);
      }
      // Each project stands alone: one invalid project never discards the others.
      const lists = req.shareLists ? new SharedLists() : undefined;
      const items = req.projects.map((bp) => {
        const v = validateProject(ds, bp.project);
        if (!v.ok) {
          return create(BatchItemSchema, {
            index: bp.index, ok: false, input: bp.project,
            error: create(BadRequestSchema, { violations: v.violations.map((x) => ({ ...x, knownValues: x.knownValues ?? [] })) }),
          });
        }
        const d = decide(ds, v.input, today());
        return create(BatchItemSchema, {
          index: bp.index, ok: true, input: inputInit(v.input), determination: toDeterminationInit(d, !lists),
          ...(lists && sharedPartsOf(lists, d)),
        });
      });
      for (const item of items) if (item.ok) verdictOf(item.determination);
      return create(DetermineBatchResponseSchema, {
        items, ruleset: L.ruleset,
        sharedCoverageGaps: lists?.coverageGaps, sharedProvenance: lists?.provenance,
        sharedPcn: lists?.pcn, sharedDistrictLayers: lists?.districtLayers, sharedStateLayers: lists?.stateLayers,
      });
    },
    listPermits() {
      return L.listPermits;
    },
    getPermit(req) {
      const permit = L.permitByNumber.get(req.number);
      if (!permit) {
        const reserved = ds.reservedByNumber.get(req.number);
        const msg = reserved
          ? `NWP ${req.number} is not a permit of the ${ds.ruleset.id} ruleset: ${reserved}`
          : `NWP ${req.number} is not a permit of the ${ds.ruleset.id} ruleset; numbering is not contiguous.`;
        throw resourceNotFound(msg, "nwp", String(req.number), ds.permitNumbers);
      }
      return create(GetPermitResponseSchema, { ruleset: L.ruleset, permit });
    },
    listDistricts() {
      return L.listDistricts;
    },
    getDistrict(req) {
      const code = req.code.trim().toUpperCase();
      const district = L.districtByCode.get(code);
      if (!district) throw resourceNotFound(`No Corps district has the code "${req.code}".`, "district", req.code, ds.districtCodes);
      return create(GetDistrictResponseSchema, { ruleset: L.ruleset, district });
    },
    getStateCertification(req) {
      const code = req.code.trim().toUpperCase();
      const certification = L.stateByCode.get(code);
      if (!certification) throw resourceNotFound(`No state or territory has the code "${req.code}".`, "state", req.code, ds.stateCodes);
      return create(GetStateCertificationResponseSchema, { ruleset: L.ruleset, certification });
    },
    listActivities() {
      return L.listActivities;
    },
  };
}
