// The 2022 CGP's requirements and eligibility screens for one site. Fixed requirements are
// prepared at load; the few whose value turns on site facts are assembled here. A tri-state
// input that was not stated is never read as false: the value is null and `because` says why.
import { create } from "@bufbuild/protobuf";
import { derivedOnce } from "@permits/rules";
import {
  RequirementSchema,
  type DerivationStep,
  type EligibilityScreen,
  type Requirement,
} from "@permits/proto/stormwater/v1/stormwater";
import { OPEN_AT_ONCE_ACRES, STABILIZATION_DAYS, STABILIZATION_DAYS_UNSTATED } from "./contract.js";
import { acres, citationMsg, kindOf, servedValue, step, valueMsg } from "./messages.js";
import { stricterValueText } from "./texts.js";
import type { RawRequirement } from "./raw.js";
import type { Dataset } from "./types.js";
import type { Site } from "./validate.js";

const EPA_SHORT = "EPA";

type WaterCase = "sensitive" | "standard" | "unknown";

interface Water {
  case: WaterCase;
  trueInputs: string[];
  unstated: string[];
  /** One number per combination of the two tri-state inputs (9 in all), for derivedOnce. */
  key: number;
}

const TRI = (v: boolean | undefined) => (v === true ? 0 : v === false ? 1 : 2);

export function receivingWater(site: Site): Water {
  const trueInputs: string[] = [];
  const unstated: string[] = [];
  if (site.impaired === true) trueInputs.push("dischargesToImpairedWater");
  if (site.impaired === undefined) unstated.push("dischargesToImpairedWater");
  if (site.tier2 === true) trueInputs.push("dischargesToTier2Water");
  if (site.tier2 === undefined) unstated.push("dischargesToTier2Water");
  const c: WaterCase = trueInputs.length > 0 ? "sensitive" : unstated.length > 0 ? "unknown" : "standard";
  return { case: c, trueInputs, unstated, key: TRI(site.impaired) * 3 + TRI(site.tier2) };
}

function waterBecause(w: Water): string {
  if (w.case === "sensitive") return `${w.trueInputs.join(" and ")} ${w.trueInputs.length > 1 ? "are" : "is"} true: the site discharges to an impaired or Tier 2, 2.5 or 3 water.`;
  if (w.case === "standard") return "dischargesToImpairedWater and dischargesToTier2Water were both stated false.";
  return `${w.unstated.join(" and ")} ${w.unstated.length > 1 ? "were" : "was"} not stated; the value turns on ${w.unstated.length > 1 ? "them" : "it"}, and an unstated input is never assumed false.`;
}

/** `fixed`: the value document 1 fixes for this case (contract.ts), served whatever the data's basis. */
function fromCase(q: RawRequirement, key: string, because: string, fixed?: number): Requirement {
  const c = q.cases![key];
  // The value and citation of a case are the dataset's (or document 1's); only `because` can carry site numbers.
  const { value, detail, citation } = derivedOnce(c, "parts", () => {
    const cite = c.citation ?? q.citation;
    const served = servedValue(fixed ?? c.value, c.detail, cite, EPA_SHORT, fixed !== undefined);
    return { value: valueMsg(served.value), detail: served.detail, citation: citationMsg(cite) };
  });
  return create(RequirementSchema, { id: q.id, kind: kindOf(q.kind), label: q.label, detail, value, citation, because, unit: q.unit });
}

/** A requirement that turns on the receiving water alone: one per case of the two inputs. */
function fromWater(q: RawRequirement, w: Water): Requirement {
  return derivedOnce(q, w.key, () => fromCase(q, w.case, waterBecause(w)));
}

function stabilization(q: RawRequirement, site: Site, w: Water): Requirement {
  const atOnce = site.maxAtOnce ?? site.acres;
  const open = `${acres(atOnce)} disturbed at one time${site.maxAtOnce === undefined ? " (not stated: the whole total is taken as open at once)" : ""}`;
  const days = STABILIZATION_DAYS;
  if (atOnce > OPEN_AT_ONCE_ACRES) return fromCase(q, "over5", `${open} is more than 5 acres.`, days.over5);
  if (w.case === "sensitive") return fromCase(q, "sensitive", `${open} is 5 acres or fewer, but ${waterBecause(w)}`, days.sensitive);
  if (w.case === "standard") return fromCase(q, "standard", `${open} is 5 acres or fewer, and ${waterBecause(w)}`, days.standard);
  return fromCase(q, "unknown", `${open} is 5 acres or fewer, but ${waterBecause(w)} ${stricterValueText(STABILIZATION_DAYS_UNSTATED)}`, STABILIZATION_DAYS_UNSTATED);
}

export interface CgpAssembly {
  requirements: Requirement[];
  screens: EligibilityScreen[];
  steps: DerivationStep[];
}

export function assembleCgp(ds: Dataset, site: Site): CgpAssembly {
  const cgp = ds.cgp;
  const w = receivingWater(site);
  const requirements: Requirement[] = [];
  for (const id of cgp.order) {
    const fixed = cgp.fixed.get(id);
    if (fixed) {
      requirements.push(fixed);
      continue;
    }
    const q = cgp.varying.get(id)!;
    requirements.push(q.variesOn === "stabilization" ? stabilization(q, site, w) : fromWater(q, w));
  }

  const screens = [
    cgp.staticScreens.esa,
    cgp.staticScreens.historic,
    w.case === "sensitive" ? cgp.receivingWater.actionRequired : w.case === "standard" ? cgp.receivingWater.pass : cgp.receivingWater.unknown,
    cgp.staticScreens.prohibited,
  ];

  const steps: DerivationStep[] = [];
  steps.push(
    site.maxAtOnce === undefined
      ? step("assumption: disturbed at one time", `maxDisturbedAcresAtOneTime was not stated: the site is assumed unphased, with the whole ${acres(site.acres)} open at once. The stabilization deadline is computed on that.`)
      : step("disturbed at one time", `${acres(site.maxAtOnce)} disturbed at one time (stated), of ${acres(site.acres)} in total.`),
  );
  steps.push(...derivedOnce(cgp, `water steps ${w.key}`, () => w.unstated.map((name) =>
    step(
      "assumption: receiving water",
      w.case === "unknown"
        ? `${name} was not stated and is not assumed false: a value that turns on it is given only where its stricter case applies, each case is described, and the receiving-water screen is unknown.`
        : `${name} was not stated and is not assumed false; the other receiving-water input (true) already settles the values.`,
    ),
  )));
  if (site.arid) {
    steps.push(derivedOnce(cgp, "arid step", () => step(
      "reduced inspection frequency",
      "aridClimate is true: the CGP allows reduced inspection frequency in arid, semi-arid or drought-stricken areas during the seasonally dry period if its conditions are met. The reduced schedule was not confirmed, so the standard values are shown.",
      cgp.citations.reducedFrequency,
    )));
  }
  return { requirements, screens, steps };
}
