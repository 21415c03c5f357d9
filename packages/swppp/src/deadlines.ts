// @permits/swppp/deadlines: a site's inspection schedule and its deadline warnings, without the
// plan document's libraries (docx, pdfmake), for the sites service's sweep and the app's pages.
export { siteSchedule, typeOfReport } from "./site-schedule.js";
export { deadlineWarnings, permitExpiring, PERMIT_EXPIRY_NOTICE_DAYS } from "./warnings.js";
export type { CorrectiveActionOverdue, DeadlineWarning, InspectionOverdue, PermitExpiring, WarningInput } from "./warnings.js";
