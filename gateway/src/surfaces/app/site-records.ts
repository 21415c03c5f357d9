// Reading a site's records for a page: the site, its saved determination (the answer its plan was
// written against), plan versions, inspections, corrective actions and rain, and the schedule that
// follows from them. Every call names the signed-in account: another account's site is NotFound.
import { fromJsonString, toJsonString } from "@bufbuild/protobuf";
import { DeterminationSchema, type Determination } from "@permits/proto/stormwater/v1/stormwater";
import { CorrectiveActionFilter, type DeterminationSnapshot, type Inspection } from "@permits/proto/sites/v1/sites";
import type { AppDeps } from "../../deps.js";
import { actorOf, type SignedIn } from "./context.js";

export type SitesClient = AppDeps["clients"]["sites"];

export function who(req: SignedIn) {
  return { accountId: req.appSession.accountId, actor: actorOf(req) };
}

export function answerBytes(d: Determination): Uint8Array {
  return new TextEncoder().encode(toJsonString(DeterminationSchema, d));
}

function answerOf(bytes: Uint8Array): Determination {
  return fromJsonString(DeterminationSchema, new TextDecoder().decode(bytes));
}

/** How many parsed answers are kept: a dashboard's worth of sites and then some. */
const ANSWERS_KEPT = 1000;
const parsedAnswers = new Map<string, Determination>();

/**
 * A snapshot's answer, parsed once: a snapshot never changes, so its parse is kept (least recently
 * used dropped first) under its id and hash, and a dashboard does not re-read every site's JSON.
 * The one who reads it must not change it.
 */
export function answerOfSnapshot(snapshot: DeterminationSnapshot): Determination {
  const key = `${snapshot.id}:${snapshot.sha256}`;
  let answer = parsedAnswers.get(key);
  if (answer) parsedAnswers.delete(key);
  else answer = answerOf(snapshot.answerJson);
  parsedAnswers.set(key, answer);
  if (parsedAnswers.size > ANSWERS_KEPT) parsedAnswers.delete(parsedAnswers.keys().next().value!);
  return answer;
}

/** yyyy-mm-dd of the gateway's clock (UTC). */
export function todayOf(deps: AppDeps): string {
  return new Date(deps.clock.now()).toISOString().slice(0, 10);
}

/** The latest version of each report (the list holds every version). */
export function latestVersions(all: readonly Inspection[]): Inspection[] {
  const latest = new Map<string, Inspection>();
  for (const i of all) if ((latest.get(i.id)?.version ?? 0) < i.version) latest.set(i.id, i);
  return [...latest.values()];
}

export async function siteRecords(sites: SitesClient, req: SignedIn, siteId: string) {
  const w = { ...who(req), siteId };
  const [{ site }, det, { plans }, { inspections }, { correctiveActions }, { rainEvents }] = await Promise.all([
    sites.getSite(w),
    sites.getDetermination(w),
    sites.listPlanVersions(w),
    sites.listInspections(w),
    sites.listCorrectiveActions({ ...w, filter: CorrectiveActionFilter.UNSPECIFIED }),
    sites.listRainEvents(w),
  ]);
  return { site: site!, snapshot: det.determination!, determination: answerOfSnapshot(det.determination!), plans, inspections, correctiveActions, rainEvents };
}
