// Helpers shared by the colocated tests (not imported by production code).
import { deepFreeze } from "@permits/rules";
import { loadDataset } from "./dataset.js";
import { compileDataset, type Dataset, type RawDataset } from "./engine/index.js";

export function isGovUrl(u: string): boolean {
  let url: URL;
  try {
    url = new URL(u);
  } catch {
    return false;
  }
  const h = url.hostname.toLowerCase();
  return url.protocol === "https:" && (/\.(gov|mil)$/.test(h) || /(^|\.)state\.[a-z]{2}\.us$/.test(h));
}

/** Every string in a JSON value that looks like a URL. */
export function urlsIn(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") {
    for (const m of value.matchAll(/\b[a-z]+:\/\/[^\s)"\]]+/gi)) out.push(m[0].replace(/[.,;]+$/, ""));
  } else if (Array.isArray(value)) {
    for (const v of value) urlsIn(v, out);
  } else if (value && typeof value === "object") {
    for (const v of Object.values(value)) urlsIn(v, out);
  }
  return out;
}

export const realDataset = (): Dataset => loadDataset();

/** A modified copy of the real data, for exercising engine paths the held facts do not reach. */
export function fixtureDataset(edit: (raw: RawDataset) => void): Dataset {
  const raw = structuredClone(loadDataset().raw);
  edit(raw);
  return deepFreeze(compileDataset(raw)); // frozen like a loaded dataset
}

/**
 * The real data with every acreage limit (or those of the given NWPs) read in the official text:
 * today's data admits no project (no limit rests on a text that may relax), so the paths of an
 * eligible candidate are exercised on this copy.
 */
export function readLimitsDataset(...numbers: number[]): Dataset {
  return fixtureDataset((raw) => {
    for (const p of raw.permits) {
      if (numbers.length > 0 && !numbers.includes(p.number)) continue;
      p.acreageLimits = p.acreageLimits.map((l) => ({ ...l, basis: "official-text", confidence: "verified", quote: "Fixture quote." }));
    }
  });
}

export const project = (over: Record<string, unknown> = {}) => ({
  state: "TX",
  district: "SWF",
  activity: "residential-development",
  aquaticResourceType: "wetland",
  permanentImpactAcres: 0.3,
  ...over,
});

/** The evaluation date the tests run on, pinned so date-dependent answers never drift. */
export const TODAY = "2026-11-24";
