// Which authority governs the site: Indian country and the federal-facility states go to EPA even
// where the state runs its own programme; otherwise the jurisdiction's own arrangement.
import type { PermitRef } from "@permits/proto/stormwater/v1/stormwater";
import type { Dataset, PreparedJurisdiction, Route } from "./types.js";
import type { Site } from "./validate.js";

export function selectRoute(pj: PreparedJurisdiction, site: Site): Route {
  if (site.onTribalLand) return pj.tribal;
  if (site.federalFacility && pj.federal) return pj.federal;
  return pj.base;
}

/** The state permit a verified state-run route points to; where permits split by size, by acreage. */
export function statePermitFor(route: Route, acres: number): PermitRef | undefined {
  if (route.governing !== "state") return undefined;
  if (route.statePermits.length === 1) return route.statePermits[0].ref;
  const hit = route.statePermits.find(
    (p) => (p.raw.minAcres === undefined || acres >= p.raw.minAcres) && (p.raw.maxAcresExclusive === undefined || acres < p.raw.maxAcresExclusive),
  );
  return hit?.ref;
}

export function governingPermit(ds: Dataset, route: Route, site: Site): PermitRef | undefined {
  if (site.activity === "industrial") return route.governing === "cgp" ? ds.msgp.ref : undefined;
  if (route.governing === "cgp") return ds.cgp.ref;
  return statePermitFor(route, site.acres);
}
