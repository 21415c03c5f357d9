// Issue 41, section 2: the classes of answer that contradicted themselves, each as a check that
// returns the contradictions it finds in one answer (empty when the answer agrees with itself).
// The corpus test runs them over every answer it renders.
import { Basis, Confidence } from "@permits/proto/common/v1/common";
import { RequirementKind, type Determination } from "@permits/proto/stormwater/v1/stormwater";
import { statesUnit } from "@permits/rules";
import type { DeterminationOut, loadDataset as loadNwp } from "@permits/nwp";
import type { loadDataset as loadStormwater } from "@permits/stormwater";

type StormwaterData = ReturnType<typeof loadStormwater>;
type NwpData = ReturnType<typeof loadNwp>;

/** Every unit the stormwater data holds, by permit id and requirement id. */
export function heldUnits(ds: StormwaterData): Map<string, string | undefined> {
  const out = new Map<string, string | undefined>();
  const cgp = ds.raw.cgpRequirements;
  for (const q of cgp.requirements) out.set(`${cgp.permitId}/${q.id}`, q.unit);
  for (const j of ds.raw.jurisdictions.jurisdictions) {
    for (const p of j.statePermits ?? []) for (const q of p.requirements) out.set(`${p.id}/${q.id}`, q.unit);
  }
  return out;
}

/** Words that say where an unverified date was read, by the basis of its citation. */
const DATE_WORDS: Partial<Record<Basis, RegExp>> = {
  [Basis.OFFICIAL_TEXT]: /agency's own text, not confirmed as final/,
  [Basis.AGENCY_FORM]: /official agency document/,
  [Basis.AGENCY_PAGE]: /stated by the agency itself/,
  [Basis.SECONDARY]: /reported by a third party/,
};

export function stormwaterContradictions(d: Determination, units: Map<string, string | undefined>): string[] {
  const out: string[] = [];
  const steps = d.derivation;
  const all = [d.coverageReason, ...d.notices, ...steps.map((s) => s.result), d.jurisdiction?.note ?? ""];
  const permitId = d.permit?.id;
  const state = d.permit !== undefined && d.permit.authority !== "EPA";

  // Section 1: a held unit is served, and the detail states it.
  for (const q of d.requirements) {
    const unit = units.get(`${permitId}/${q.id}`);
    if (q.unit !== unit) out.push(`${q.id}: unit ${JSON.stringify(q.unit)}, the data holds ${JSON.stringify(unit)}`);
    if (unit && !statesUnit(q.detail, unit)) out.push(`${q.id}: the detail does not state its unit (${unit})`);
  }

  // The federal permit's requirements attach with the count of those verified, never "it has been read".
  const governing = steps.find((s) => s.step === "governing permit")?.result ?? "";
  if (/has been read, so its requirements attach/.test(governing)) out.push(`governing permit: "${governing}"`);
  if (!state && d.requirements.length > 0) {
    const verified = d.requirements.filter((q) => q.citation?.confidence === Confidence.VERIFIED).length;
    const n = d.requirements.length;
    const said = verified === n ? `all ${n} ${n === 1 ? "is" : "are"} verified` : `${verified} of ${n} ${verified === 1 ? "is" : "are"} verified`;
    if (!governing.includes(said)) out.push(`governing permit: does not say "${said}": "${governing}"`);
  }

  // A state permit said to be unread is never said, a step later, to have requirements read.
  if (all.some((t) => /of its requirements ha(?:s|ve) been read/.test(t)) && all.some((t) => /the state permit was not read|permit .* has not been read by this service/.test(t))) {
    out.push("says the state permit was not read and that some of its requirements have been read");
  }

  // Dates held are never said not to be held.
  if (d.permit?.effectiveDate || d.permit?.expiryDate) {
    for (const t of all) if (/\bdates are not held\b/.test(t)) out.push(`holds a date but says: "${t}"`);
  }

  // An unverified date's qualifier follows where it was read (its citation's basis), not only its confidence.
  for (const s of steps) {
    const m = /\((a date [^)]*)\)/.exec(s.result);
    if (!m || !s.citation) continue;
    const want = DATE_WORDS[s.citation.basis];
    if (want === undefined || !want.test(m[1])) out.push(`${s.step}: "(${m[1]})" on a date whose basis is ${Basis[s.citation.basis]}`);
  }

  // A jurisdiction never leaves out the number its governing state permit holds.
  if (state && d.permit?.permitNumber && d.jurisdiction && !d.jurisdiction.permitNumber) {
    out.push(`jurisdiction permitNumber is empty while its permit holds ${d.permit.permitNumber}`);
  }

  // A state permit's own stabilization rule governs, and `because` says so.
  if (state) {
    for (const q of d.requirements) {
      if (q.kind === RequirementKind.STABILIZATION && !/state permit's own stabilization rule governs/.test(q.because ?? "")) out.push(`${q.id}: because does not say the state's rule governs`);
    }
  }
  return out;
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export function nwpContradictions(d: DeterminationOut, ds: NwpData): string[] {
  const out: string[] = [];
  // Section 1: required is a boolean, and the headline, pcn and the gaps say why in the same words.
  if (typeof d.pcn.required !== "boolean") out.push(`pcn.required is ${String(d.pcn.required)}`);
  if (d.pcn.required === true) {
    const reasons = d.pcn.because.split(/; (?=(?:a|no) pre-construction notification)/);
    if (!d.headline.includes(d.pcn.because) && !d.headline.includes(capital(d.pcn.because))) out.push(`headline does not say "${d.pcn.because}"`);
    for (const r of reasons) if (!d.coverageGaps.includes(`${capital(r)}.`)) out.push(`no gap says "${r}"`);
  }
  if (/is unknown/.test(d.headline) && /pre-construction notification/.test(d.headline)) out.push(`headline calls the notification unknown: ${d.headline}`);

  // A state whose Section 401 decision an answer quotes is never said to have none applied.
  const state = ds.statesByCode.get(d.stateLayer.code)!.raw;
  const quoted = [d.headline, ...d.coverageGaps].some((t) => t.includes(`${state.name}'s`) && /Section 401 decision/.test(t));
  if (quoted && d.coverageGaps.some((g) => g.startsWith(`Section 401 water quality certification decisions for ${state.name} are not`))) {
    out.push(`quotes ${state.name}'s Section 401 decision and says its decisions were not applied`);
  }
  return out;
}
