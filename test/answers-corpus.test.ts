// Issue 27: a fixed corpus of answers, rendered as clients see them, read for the team's internal
// words and agreement errors; and on every answer, overall confidence (rule 1) and the rule of
// caution (rule 2). The engines are called in process, so the corpus takes seconds.
import { create, toJson } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { Basis, Confidence, type Citation } from "@permits/proto/common/v1/common";
import { DetermineBatchRequestSchema, DetermineBatchResponseSchema } from "@permits/proto/nwp/v1/nwp";
import { DeterminationSchema, SiteInputSchema, type Determination } from "@permits/proto/stormwater/v1/stormwater";
import { determineStormwater, loadDataset as loadStormwater, requirementsFromDetermination } from "@permits/stormwater";
import { createNwpService, decide, type DeterminationOut, loadDataset as loadNwp } from "@permits/nwp";
import { EVALUATION_DATE as TODAY } from "./support/target.js";
import { texts, wordProblems } from "./support/answer-words.js";
import { heldUnits, nwpContradictions, stormwaterContradictions } from "./support/answer-consistency.js";

const sw = loadStormwater();
const nwp = loadNwp();

// ---- stormwater ----

const SITES = sw.codes.flatMap((state) => [
  ...["construction", "industrial"].flatMap((activity) => [0.5, 3, 12].flatMap((disturbedAcres) => [
    { state, activity, disturbedAcres },
    { state, activity, disturbedAcres, maxDisturbedAcresAtOneTime: disturbedAcres / 2, dischargesToImpairedWater: false, dischargesToTier2Water: false },
  ])),
  // A project running past most permits' expiry: the date steps and their qualifiers.
  { state, activity: "construction", disturbedAcres: 3, startDate: "2027-06-01", endDate: "2031-12-31" },
]);

function citationsOf(d: Determination): (Citation | { confidence: Confidence } | undefined)[] {
  return [
    d.permit ?? { confidence: Confidence.UNVERIFIED },
    d.jurisdiction, d.jurisdiction?.credential,
    ...d.eligibilityScreens.map((s) => s.citation), ...d.requirements.map((r) => r.citation), ...d.derivation.map((s) => s.citation),
  ];
}

describe("stormwater corpus: every jurisdiction x both activities x 0.5, 3 and 12 acres, phased and unphased", () => {
  const answers = SITES.map((s) => ({ s, d: determineStormwater(sw, create(SiteInputSchema, s as never), TODAY) }));

  it(`${SITES.length} answers: no internal words, no agreement errors`, () => {
    const problems = new Set<string>();
    for (const { s, d } of answers) {
      for (const t of texts(toJson(DeterminationSchema, d))) for (const p of wordProblems(t)) problems.add(`${s.state}: ${p}`);
    }
    expect([...problems]).toEqual([]);
  });

  it("issue 41: no answer contradicts itself (units held and stated, the permit read or not, dates held or not, date qualifiers by basis, permit numbers, the state's own stabilization rule)", () => {
    const units = heldUnits(sw);
    const problems = answers.flatMap(({ s, d }) => stormwaterContradictions(d, units).map((p) => `${s.state} ${s.activity} ${s.disturbedAcres}: ${p}`));
    expect([...new Set(problems)]).toEqual([]);
  });

  it("rule 1: overall confidence is verified exactly when every citation of the answer is; the requirements answer never claims more", () => {
    for (const { s, d } of answers) {
      const all = citationsOf(d).filter((c) => c !== undefined).every((c) => c!.confidence === Confidence.VERIFIED);
      expect(d.confidence, JSON.stringify(s)).toBe(all ? Confidence.VERIFIED : Confidence.UNVERIFIED);
      const r = requirementsFromDetermination(d);
      if (r.confidence === Confidence.VERIFIED) expect(r.requirements.every((q) => q.citation?.confidence === Confidence.VERIFIED)).toBe(true);
    }
  });

  it("rule 2: values are withheld only where no source states them (document 1's stabilization values excepted); 'does not apply' only on a fact that may relax", () => {
    for (const { s, d } of answers) {
      for (const q of d.requirements) {
        const shown = q.value?.kind.case !== undefined && q.value.kind.case !== "nullValue";
        if (q.citation?.basis === Basis.UNSOURCED && q.id !== "stabilization.complete") expect(shown, `${s.state} ${q.id}`).toBe(false);
      }
      const cred = d.jurisdiction?.credential;
      if (cred?.appliesToThisSite === false) expect([Basis.OFFICIAL_TEXT, Basis.AGENCY_FORM]).toContain(cred.basis);
    }
  });
});

// ---- nwp ----

const PLACES = [["CA", "SPK"], ["TX", "SWF"], ["VA", "NAO"], ["PR", "SAJ"], ["TX", "SAJ"], ["MA", "NAE"]] as const;
const PROJECTS = nwp.activityIds.flatMap((activity, i) => nwp.resourceTypes.flatMap((aquaticResourceType) => [0.05, 0.3, 0.6].map((permanentImpactAcres, j) => {
  const [state, district] = PLACES[(i + j) % PLACES.length];
  return { state, district, activity, aquaticResourceType, permanentImpactAcres, ...(j === 2 ? { streamBedLinearFeet: 400 } : {}) };
})));

const RELAXING = new Set(["official-text", "agency-form", "prior-edition"]);

function checkNwpRules(d: DeterminationOut, lf: number | undefined): void {
  // Rule 1: verified only when every reason and trigger is.
  if (d.confidence === "verified") expect([...d.candidates.flatMap((c) => c.reasons), ...d.pcn.triggers].every((x) => x.confidence === "verified")).toBe(true);
  // Rule 2: a candidate is admitted only on limits that may relax, and a stream-bed loss given is compared.
  for (const c of d.candidates) {
    if (c.eligible !== true) continue;
    for (const r of c.reasons) expect(RELAXING.has(r.basis), r.code).toBe(true);
    if (lf !== undefined) expect(c.reasons.some((r) => r.code === "linear-feet-within-limit" || r.code === "no-linear-feet-limit")).toBe(true);
  }
  if (d.verdict === "nwp-likely") expect(d.pcn.required).toBe(false);
  if (d.pcn.required === false) expect(d.candidates.some((c) => c.eligible === true)).toBe(true);
  if (d.pcn.triggers.length > 0) expect(d.pcn.required).toBe(true);
}

describe("nwp corpus: every activity x resource type x 0.05, 0.3 and 0.6 acre, and one batch", () => {
  const answers = PROJECTS.map((p) => ({ p, d: decide(nwp, p as never, TODAY) }));

  it(`${PROJECTS.length} answers: no internal words, no agreement errors`, () => {
    const problems = new Set<string>();
    for (const { p, d } of answers) for (const t of texts(d)) for (const x of wordProblems(t)) problems.add(`${p.activity}: ${x}`);
    expect([...problems]).toEqual([]);
  });

  it("issue 41: pcn.required is never null, and the headline, pcn and the gaps say why in the same words; a quoted 401 decision is never said not to be applied", () => {
    const problems = answers.flatMap(({ p, d }) => nwpContradictions(d, nwp).map((x) => `${p.state} ${p.activity} ${p.aquaticResourceType} ${p.permanentImpactAcres}: ${x}`));
    expect([...new Set(problems)]).toEqual([]);
  });

  it("rules 1 and 2 hold on every answer; today no answer is verified or admits a candidate", () => {
    for (const { p, d } of answers) {
      checkNwpRules(d, p.streamBedLinearFeet);
      expect(d.confidence).toBe("unverified");
      expect(d.candidates.every((c) => c.eligible !== true)).toBe(true);
    }
  });

  it("a batch: its items' words and rules, and each item carries the overall confidence", async () => {
    const svc = createNwpService(nwp, () => TODAY);
    const projects = PROJECTS.filter((_, i) => i % 9 === 0).slice(0, 20).map((project, index) => ({ index, project }));
    const res = await svc.determineBatch(create(DetermineBatchRequestSchema, { projects }), {} as never);
    const json = toJson(DetermineBatchResponseSchema, res) as { items: { ok: boolean; determination: { confidence: string } }[] };
    expect(json.items).toHaveLength(projects.length);
    for (const item of json.items) expect(item.determination.confidence).toBe("CONFIDENCE_UNVERIFIED");
    const problems = texts(json).flatMap(wordProblems);
    expect(problems).toEqual([]);
  });
});
