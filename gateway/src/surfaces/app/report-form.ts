// The inspection report form (the fields of EPA's inspection report template) and its mapping to
// the sites service's InspectionReport, both ways: a new report and an amendment use one form.
// Each field of the form is a field of the report. A report written before those fields existed
// kept some of them as labelled lines of its summary; such a report is shown as it was written,
// and an amendment of it starts from those lines read back into their fields.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { InspectionType, type InspectionReport, type InspectionReportSchema } from "@permits/proto/sites/v1/sites";
import { typeOfReport } from "@permits/swppp/deadlines";
import { html, type Html } from "./html.js";
import { checkbox, input, select, textarea, type FieldErrors } from "./form.js";

export const FINDING_ROWS = 3;

/** The labels the summary's lines were written under before each had a field (form field, label). */
const SUMMARY_LINES = [
  ["qualification", "Inspector's qualification"],
  ["areas_inspected", "Areas inspected"],
  ["controls", "Controls needing maintenance or repair"],
  ["stabilization", "Stabilization"],
  ["discharges", "Discharges seen"],
  ["notes", "Other notes"],
] as const;

const TYPES = [["routine", "Routine"], ["storm_event", "After a storm event"], ["other", "Other"]] as const;
const TYPE_OF: Record<string, InspectionType> = { routine: InspectionType.ROUTINE, storm_event: InspectionType.STORM_EVENT, other: InspectionType.OTHER };

export const typeWords = (r: InspectionReport) => TYPES.find(([k]) => k === typeOfReport(r))![1];

export function reportOf(form: Record<string, string>): MessageInitShape<typeof InspectionReportSchema> {
  const text = (k: string) => (form[k] ?? "").trim();
  const inches = text("rainfall_inches");
  const rainfall = inches === "" ? undefined : Number(inches);
  const findings = [];
  for (let n = 1; n <= FINDING_ROWS; n++) {
    const description = text(`finding_${n}_description`);
    if (description || text(`finding_${n}_location`)) findings.push({ id: `f${n}`, location: text(`finding_${n}_location`), description, needsCorrectiveAction: form[`finding_${n}_corrective`] === "true" });
  }
  const type = text("type");
  return {
    inspectedOn: text("inspected_on"),
    startTime: text("start_time"),
    endTime: text("end_time"),
    inspector: text("inspector_name") || text("inspector_title") ? { name: text("inspector_name"), role: text("inspector_title"), company: "", email: "", phone: "" } : undefined,
    phase: text("phase"),
    weather: text("weather"),
    type: TYPE_OF[type] ?? InspectionType.UNSPECIFIED,
    stormTriggered: type === "storm_event" ? true : type === "routine" ? false : undefined,
    rainfallInches: rainfall !== undefined && Number.isFinite(rainfall) ? rainfall : rainfall === undefined ? undefined : -1,
    rainfallSource: text("rainfall_source"),
    unsafeAreas: text("unsafe_areas"),
    findings,
    summary: text("notes"),
    inspectorQualification: text("qualification"),
    areasInspected: text("areas_inspected"),
    controlsNeedingRepair: text("controls"),
    stabilization: text("stabilization"),
    dischargesSeen: text("discharges"),
  };
}

/** The form's values for a stored report (the amendment form starts from the version it amends). */
export function formOfReport(r: InspectionReport): Record<string, string> {
  const out: Record<string, string> = {
    inspected_on: r.inspectedOn,
    start_time: r.startTime,
    end_time: r.endTime,
    inspector_name: r.inspector?.name ?? "",
    inspector_title: r.inspector?.role ?? "",
    phase: r.phase,
    weather: r.weather,
    type: typeOfReport(r),
    rainfall_inches: r.rainfallInches === undefined ? "" : String(r.rainfallInches),
    rainfall_source: r.rainfallSource,
    unsafe_areas: r.unsafeAreas,
    qualification: r.inspectorQualification,
    areas_inspected: r.areasInspected,
    controls: r.controlsNeedingRepair,
    stabilization: r.stabilization,
    discharges: r.dischargesSeen,
    notes: r.summary,
  };
  if (isLabelledSummary(r.summary)) {
    out.notes = "";
    for (const line of r.summary.split("\n")) {
      const found = SUMMARY_LINES.find(([, label]) => line.startsWith(`${label}: `));
      if (found) out[found[0]] = line.slice(found[1].length + 2);
    }
  }
  r.findings.slice(0, FINDING_ROWS).forEach((f, n) => {
    out[`finding_${n + 1}_location`] = f.location;
    out[`finding_${n + 1}_description`] = f.description;
    out[`finding_${n + 1}_corrective`] = f.needsCorrectiveAction ? "true" : "";
  });
  return out;
}

/** A service's field name ("report.inspector.name") as the form's ("inspector_name"). */
export function reportFieldName(field: string): string {
  const f = field.replace(/^report\./, "");
  const finding = /^findings\[(\d+)\]\.(\w+)/.exec(f);
  if (finding) return `finding_${Number(finding[1]) + 1}_${finding[2] === "location" ? "location" : "description"}`;
  const names: Record<string, string> = {
    inspectedOn: "inspected_on",
    startTime: "start_time",
    endTime: "end_time",
    "inspector.name": "inspector_name",
    "inspector.role": "inspector_title",
    inspectorQualification: "qualification",
    type: "type",
    stormTriggered: "type",
    rainfallInches: "rainfall_inches",
    rainfallSource: "rainfall_source",
    unsafeAreas: "unsafe_areas",
    phase: "phase",
    weather: "weather",
    areasInspected: "areas_inspected",
    controlsNeedingRepair: "controls",
    stabilization: "stabilization",
    dischargesSeen: "discharges",
    summary: "notes",
  };
  return names[f] ?? "";
}

/** Whether a summary is one written before the fields existed: every line under one of the old labels. */
export function isLabelledSummary(summary: string): boolean {
  const lines = summary.split("\n").filter(Boolean);
  return lines.length > 0 && lines.every((line) => SUMMARY_LINES.some(([, label]) => line.startsWith(`${label}: `)));
}

/** The form's fields; `findingExtra` adds to each finding (the choice of its corrective-action deadline). */
export function reportFields(values: Record<string, string>, errors?: FieldErrors, findingExtra?: (n: number) => Html): Html {
  const findings = [];
  for (let n = 1; n <= FINDING_ROWS; n++) {
    findings.push(html`<fieldset><legend>Finding ${n}</legend>
${input({ name: `finding_${n}_location`, label: "Where on the site", maxlength: 200 }, values, errors)}
${textarea({ name: `finding_${n}_description`, label: "What you saw, and what needs doing" }, values, errors)}
${checkbox({ name: `finding_${n}_corrective`, label: "Needs a corrective action (it gets a deadline from your permit)" }, values, errors)}
${findingExtra?.(n) ?? ""}</fieldset>`);
  }
  return html`<fieldset><legend>When and who</legend>
${input({ name: "inspected_on", label: "Date of the inspection", type: "date", required: true }, values, errors)}
${input({ name: "start_time", label: "Start time", type: "time" }, values, errors)}
${input({ name: "end_time", label: "End time", type: "time" }, values, errors)}
${input({ name: "inspector_name", label: "Inspector's name", maxlength: 200 }, values, errors)}
${input({ name: "inspector_title", label: "Inspector's title", maxlength: 200 }, values, errors)}
${input({ name: "qualification", label: "Inspector's qualification", hint: "e.g. the training or certificate that makes them a qualified person.", maxlength: 200 }, values, errors)}
${select({ name: "type", label: "Type of inspection", options: TYPES }, values, errors)}
</fieldset>
<fieldset><legend>Weather and rain</legend>
${input({ name: "rainfall_inches", label: "Rain since the last inspection (inches)", type: "number", step: "any" }, values, errors)}
${input({ name: "rainfall_source", label: "How the rain was measured", hint: "e.g. rain gauge on site, or the name of the weather station.", maxlength: 200 }, values, errors)}
${input({ name: "weather", label: "Weather at the time", maxlength: 500 }, values, errors)}
</fieldset>
<fieldset><legend>The site</legend>
${input({ name: "phase", label: "Phase of construction", maxlength: 500 }, values, errors)}
${textarea({ name: "areas_inspected", label: "Areas inspected" }, values, errors)}
${textarea({ name: "controls", label: "Controls needing maintenance or repair" }, values, errors)}
${textarea({ name: "stabilization", label: "Stabilization (areas stabilized, or still to stabilize)" }, values, errors)}
${textarea({ name: "discharges", label: "Discharges seen" }, values, errors)}
${textarea({ name: "unsafe_areas", label: "Areas unsafe to inspect, and why" }, values, errors)}
${textarea({ name: "notes", label: "Other notes" }, values, errors)}
</fieldset>
${findings}`;
}
