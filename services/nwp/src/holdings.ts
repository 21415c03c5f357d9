// What the NWP dataset holds per permit, and on which basis: the coverage read-out
// (GET /api/v1/coverage and `npm run data:report`), and its facts as an index (the changelog,
// GET /api/v1/changes, and the report of facts by age). Static: built once from the loaded dataset.
import { createHash } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import { basisOf, deepFreeze, type FactIndex, factIndexOnce, type GroupOf, lastCheckedByGroup, type Snapshot, tallyFacts } from "@permits/rules";
import { BasisCountSchema, Confidence } from "@permits/proto/common/v1/common";
import { FactHeldSchema, GetCoverageResponseSchema, PermitCoverageSchema, type GetCoverageResponse, type Ruleset } from "@permits/proto/nwp/v1/nwp";
import type { Dataset, RawDataset, RawPermit } from "./engine/index.js";

const CONF = { verified: Confidence.VERIFIED, unverified: Confidence.UNVERIFIED } as const;

/** The ruleset id and a short hash of the whole dataset, so a stored answer names what it came from. */
export function nwpDatasetVersion(ds: Dataset): string {
  return `${ds.ruleset.id}.${createHash("sha256").update(JSON.stringify(ds.raw)).digest("hex").slice(0, 10)}`;
}

/** Every fact, grouped by nationwide permit, with the ruleset (dates, PCN review, reserved numbers) as a group of its own. */
export function nwpFacts(raw: RawDataset): FactIndex {
  const groupOf: GroupOf = ([file, a]) => {
    if (file === "permits") return { kind: "nwp", id: a };
    if (file === "ruleset") return { kind: "ruleset", id: raw.ruleset.id };
    return { kind: file, id: a };
  };
  return factIndexOnce(raw, () => ({ ruleset: raw.ruleset, permits: raw.permits, districts: raw.districts, "states-401": raw.states, activities: raw.activities }), groupOf);
}

/** The loaded dataset as its changelog snapshot (previousVersion is set where it is released). */
export function nwpSnapshot(ds: Dataset): Snapshot {
  return { dataset: "nwp", datasetVersion: nwpDatasetVersion(ds), previousVersion: null, facts: nwpFacts(ds.raw) };
}

/** Facts not held (null), per permit: an acreage limit, notification terms. */
export function nwpNullFacts(permits: RawPermit[]): { label: string; count: number }[] {
  return [
    { label: "NWPs without an acreage limit to compare", count: permits.filter((p) => p.acreageLimits.length === 0).length },
    { label: "NWPs with no limit terms held", count: permits.filter((p) => !p.limitTerms.held).length },
    { label: "NWPs without notification terms", count: permits.filter((p) => !p.notification.held).length },
  ];
}

export function coverageOf(ds: Dataset, ruleset: Ruleset): GetCoverageResponse {
  const checked = lastCheckedByGroup(nwpFacts(ds.raw));
  const permits = ds.raw.permits.map((p) => {
    const lim = p.acreageLimits[0];
    // A compared limit where one is held; otherwise what is known of the limits as a whole.
    const limits = lim ?? p.limitTerms;
    return create(PermitCoverageSchema, {
      number: p.number,
      title: p.title,
      acreageLimit: create(FactHeldSchema, { held: lim !== undefined || p.limitTerms.held, basis: basisOf(limits.basis), confidence: CONF[limits.confidence] }),
      notification: create(FactHeldSchema, { held: p.notification.held, basis: basisOf(p.notification.basis), confidence: CONF[p.notification.confidence] }),
      pcnAlways: p.pcnConditions.some((c) => c.kind === "always"),
      lastCheckedOn: checked.get(`nwp/${p.number}`),
    });
  });
  return deepFreeze(create(GetCoverageResponseSchema, {
    ruleset,
    datasetVersion: nwpDatasetVersion(ds),
    facts: tallyFacts(ds.raw).map((t) => create(BasisCountSchema, { basis: basisOf(t.basis), confidence: CONF[t.confidence], count: t.count })),
    nullFacts: nwpNullFacts(ds.raw.permits).reduce((n, x) => n + x.count, 0),
    permits,
  }));
}
