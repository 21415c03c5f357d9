// The front door of @permits/swppp: the pure parts of the app's stormwater work. The inspection
// schedule, corrective-action deadlines, and the plan document (SWPPP) as a model and as DOCX and
// PDF bytes (a site's schedule and deadline warnings alone, without the document's libraries: ./deadlines). Nothing here touches files, sockets or the clock: dates are inputs.
export { inspectionSchedule } from "./schedule.js";
export type { InspectionRecord, InspectionType, ItemBasis, OperatorFrequency, RainEvent, ReportItem, Schedule, ScheduleInput, ScheduleItem, StormItem } from "./schedule.js";
export { correctiveActionDeadlines } from "./corrective.js";
export type { CorrectiveDeadline, CorrectiveDeadlines } from "./corrective.js";
export type { Authority, Cited, HeldRule, Unit } from "./rules-held.js";
export { NOTICES, citationLine } from "./texts.js";
export { buildPlanModel } from "./plan/model.js";
export type { PlanContact, PlanInput, PlanSite } from "./plan/model.js";
export type { Block, PlanModel, PlanSection } from "./plan/model-types.js";
export { renderPlanDocx } from "./plan/docx.js";
export { renderPlanPdf } from "./plan/pdf.js";
export { generatePlan } from "./plan/generate.js";
