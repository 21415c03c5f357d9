// Deadline warnings: what a site must be told before it is too late, as a pure function of its
// saved answer, its end date, its inspection schedule, its open corrective actions and today.
// The sites service's sweep records each as an event once (its subject is part of the event's key);
// the app's dashboard shows the same warnings. Dates are the answer's own, with its confidence.
import { Confidence } from "@permits/proto/common/v1/common";
import type { Determination } from "@permits/proto/stormwater/v1/stormwater";
import { addDays } from "./dates.js";
import type { Schedule } from "./schedule.js";

/** How far ahead a permit's expiry is warned of. */
export const PERMIT_EXPIRY_NOTICE_DAYS = 60;

export interface PermitExpiring {
  type: "site.permit_expiring";
  /** Names the condition: the permit and its expiry date (a new date is a new warning). */
  subject: string;
  permit: { id: string; name: string; permitNumber: string | null; expiresOn: string; verified: boolean };
  /** The permit expires before the site's end date. */
  beforeSiteEnds: boolean;
  siteEndsOn: string | null;
  /** The expiry date has passed. */
  expired: boolean;
}

export interface InspectionOverdue {
  type: "inspection.overdue";
  subject: string;
  what: "routine" | "storm_event" | "report";
  due: string;
  words: string;
}

export interface CorrectiveActionOverdue {
  type: "corrective_action.overdue";
  subject: string;
  correctiveActionId: string;
  description: string;
  due: string;
}

export type DeadlineWarning = PermitExpiring | InspectionOverdue | CorrectiveActionOverdue;

export interface WarningInput {
  determination: Determination;
  /** The site's end date (its input's endDate); null when not given. */
  siteEndsOn: string | null;
  schedule: Schedule;
  /** The site's open corrective actions. */
  openCorrectiveActions: readonly { id: string; description: string; dueOn: string }[];
  today: string;
}

/** The governing permit's expiry, when it falls before the site's end date or within the notice period. */
export function permitExpiring(determination: Determination, siteEndsOn: string | null, today: string): PermitExpiring | null {
  const p = determination.permit;
  const expiresOn = p?.expiryDate;
  if (!p || !expiresOn) return null;
  const beforeSiteEnds = siteEndsOn !== null && expiresOn < siteEndsOn;
  if (!beforeSiteEnds && expiresOn > addDays(today, PERMIT_EXPIRY_NOTICE_DAYS)) return null;
  return {
    type: "site.permit_expiring",
    subject: `${p.id}:${expiresOn}`,
    permit: { id: p.id, name: p.name, permitNumber: p.permitNumber ?? null, expiresOn, verified: p.confidence === Confidence.VERIFIED },
    beforeSiteEnds,
    siteEndsOn,
    expired: expiresOn < today,
  };
}

export function deadlineWarnings(input: WarningInput): DeadlineWarning[] {
  const out: DeadlineWarning[] = [];
  const expiring = permitExpiring(input.determination, input.siteEndsOn, input.today);
  if (expiring) out.push(expiring);
  for (const o of input.schedule.overdue) out.push({ type: "inspection.overdue", subject: `${o.what}:${o.due}`, what: o.what, due: o.due, words: o.words });
  for (const c of input.openCorrectiveActions) {
    if (c.dueOn < input.today) out.push({ type: "corrective_action.overdue", subject: `${c.id}:${c.dueOn}`, correctiveActionId: c.id, description: c.description, due: c.dueOn });
  }
  return out;
}
