// Which authority governs the site: Indian country and the federal-facility states go to EPA even
// where the state runs its own programme; otherwise the jurisdiction's own arrangement.
import type { PermitRef } from "@permits/proto/stormwater/v1/stormwater";
import type { Dataset, PermitTerm, PreparedJurisdiction, PreparedStatePermit, Route } from "./types.js";
import type { Site } from "./validate.js";

export function selectRoute(pj: PreparedJurisdiction, site: Site): Route {
  if (site.onTribalLand) return pj.tribal;
  if (site.federalFacility && pj.federal) return pj.federal;
  return pj.base;
}

/**
 * The state permit a verified state-run route points to; where a permit covers only some sizes, by
 * acreage. A size no held permit covers has none: a permit for 5 acres or more never governs a
 * 2-acre site because it is the only one held.
 */
export function statePermitFor(route: Route, acres: number): PreparedStatePermit | undefined {
  if (route.governing !== "state") return undefined;
  return route.statePermits.find((p) => coversAcres(p.raw, acres));
}

/** Whether a size range (a permit's, or a requirement's within it) includes the site's acres; no bound: any size. */
export function coversAcres(range: { minAcres?: number; maxAcresExclusive?: number }, acres: number): boolean {
  return (range.minAcres === undefined || acres >= range.minAcres) && (range.maxAcresExclusive === undefined || acres < range.maxAcresExclusive);
}

/** The governing permit: its reference, its term, and the state permit it is (if one). */
export interface Governing {
  ref: PermitRef;
  term: PermitTerm;
  state: PreparedStatePermit | undefined;
}

export function governingPermit(ds: Dataset, route: Route, site: Site): Governing | undefined {
  if (site.activity === "industrial") return route.governing === "cgp" ? { ref: ds.msgp.ref, term: ds.msgp.term, state: undefined } : undefined;
  if (route.governing === "cgp") return { ref: ds.cgp.ref, term: ds.cgp.term, state: undefined };
  const p = statePermitFor(route, site.acres);
  return p && { ref: p.ref, term: p.term, state: p };
}
