// A site's inspection schedule from its records as the sites service keeps them (signed report
// versions, rain events, the operator's frequency choice): the one adaptation of those records to
// inspectionSchedule, shared by the app's pages and the sites service's deadline sweep.
import { type Inspection, type InspectionFrequency, type InspectionReport, InspectionStatus, InspectionType } from "@permits/proto/sites/v1/sites";
import type { Determination } from "@permits/proto/stormwater/v1/stormwater";
import { inspectionSchedule, type InspectionRecord, type Schedule } from "./schedule.js";

const TYPE_NAMES: Partial<Record<InspectionType, InspectionRecord["type"]>> = { [InspectionType.ROUTINE]: "routine", [InspectionType.STORM_EVENT]: "storm_event", [InspectionType.OTHER]: "other" };

/** The report's type: as it is kept, or read from storm_triggered in a report written before the type was kept ("other" when neither says). */
export function typeOfReport(r: InspectionReport): InspectionRecord["type"] {
  return TYPE_NAMES[r.type] ?? (r.stormTriggered === undefined ? "other" : r.stormTriggered ? "storm_event" : "routine");
}

export function siteSchedule(determination: Determination, inspections: readonly Inspection[], rain: readonly { occurredOn: string; inches: number }[], today: string, frequency?: InspectionFrequency): Schedule {
  // Only signed reports count as inspections done: the date from the latest signed version, the
  // report's completion from the first signing (an amendment does not move it).
  const signed = inspections.filter((i) => i.status === InspectionStatus.SIGNED).sort((a, b) => a.version - b.version);
  const byId = new Map<string, Inspection[]>();
  for (const i of signed) byId.set(i.id, [...(byId.get(i.id) ?? []), i]);
  const done = [...byId.values()].map((versions) => {
    const last = versions[versions.length - 1];
    return { date: last.report!.inspectedOn, type: typeOfReport(last.report!), reportCompletedOn: versions[0].signedAt.slice(0, 10) };
  });
  return inspectionSchedule({
    determination,
    inspections: done,
    rainEvents: rain.map((r) => ({ date: r.occurredOn, inches: r.inches })),
    today,
    frequencyOption: frequency?.optionId || null,
    operatorFrequency: frequency?.everyDays !== undefined ? { everyDays: frequency.everyDays } : null,
  });
}
