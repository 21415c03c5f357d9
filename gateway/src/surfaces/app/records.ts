// Exports for a regulator: GET /app/sites/{id}/records.csv and .pdf (the inspection log, every
// version, and the corrective-action log) and .zip (the sites service's whole record with its
// manifest of SHA-256 hashes). Read-only: a cancelled plan keeps them until retention ends.
import type { FastifyInstance } from "fastify";
import { NOTICES, renderPlanPdf, type Block, type PlanModel } from "@permits/swppp";
import { CorrectiveActionStatus, DueDateSource, InspectionStatus, type CorrectiveAction, type Inspection } from "@permits/proto/sites/v1/sites";
import type { AppDeps } from "../../deps.js";
import { requireSession, type SignedIn } from "./context.js";
import { siteRecords, todayOf, who } from "./site-records.js";
import { fileStem } from "./plans.js";
import { typeOfReport } from "@permits/swppp/deadlines";
import { isLabelledSummary, typeWords } from "./report-form.js";
import { dueWords } from "./corrective-choice.js";

const INSPECTION_COLUMNS = ["record", "id", "version", "status", "inspected_on", "start_time", "end_time", "inspector", "inspector_title", "inspector_qualification", "type", "storm_triggered", "rainfall_inches", "rainfall_source", "weather", "phase", "areas_inspected", "controls_needing_repair", "stabilization", "discharges_seen", "unsafe_areas", "findings", "summary", "photos", "amendment_reason", "signed_by", "signed_at", "report_sha256"];
const CORRECTIVE_COLUMNS = ["record", "id", "inspection_id", "finding_id", "description", "found_on", "due_on", "due_source", "due_rule", "due_rule_citation", "due_rule_confidence", "status", "completed_on", "notes"];
const DUE_SOURCE_WORDS: Record<DueDateSource, string> = { [DueDateSource.UNSPECIFIED]: "", [DueDateSource.PERMIT_RULE]: "permit rule", [DueDateSource.OPERATOR]: "entered by the operator" };

/** One CSV cell; a cell a spreadsheet would run as a formula is written as text. */
function cell(v: string | number | undefined): string {
  let s = v === undefined ? "" : String(v);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

const line = (cells: (string | number | undefined)[]) => cells.map(cell).join(",");
const photoWords = (i: Inspection) => i.photos.map((p) => `${p.caption || p.id} (added in version ${p.addedInVersion}, sha256 ${p.sha256})`);

function inspectionCells(i: Inspection): (string | number | undefined)[] {
  const r = i.report!;
  return ["inspection", i.id, i.version, i.status === InspectionStatus.SIGNED ? "signed" : "draft", r.inspectedOn, r.startTime, r.endTime, r.inspector?.name, r.inspector?.role, r.inspectorQualification, typeOfReport(r), r.stormTriggered === undefined ? "" : r.stormTriggered ? "yes" : "no", r.rainfallInches, r.rainfallSource, r.weather, r.phase, r.areasInspected, r.controlsNeedingRepair, r.stabilization, r.dischargesSeen, r.unsafeAreas, r.findings.map((f) => `${f.location}: ${f.description}${f.needsCorrectiveAction ? " [corrective action]" : ""}`).join(" | "), r.summary.replace(/\n/g, " | "), photoWords(i).join(" | "), i.amendmentReason, i.signedBy, i.signedAt, i.reportSha256];
}

function correctiveCells(c: CorrectiveAction): (string | number | undefined)[] {
  const rule = c.dueRule;
  return ["corrective_action", c.id, c.inspectionId, c.findingId, c.description, c.foundOn, c.dueOn, DUE_SOURCE_WORDS[c.dueSource], rule?.label, rule?.citation, rule ? (rule.confidence === "verified" ? "Verified" : "Unverified") : "", c.status === CorrectiveActionStatus.COMPLETED ? "completed" : "open", c.completedOn, c.events.map((e) => `${e.occurredOn}: ${e.note}`).join(" | ")];
}

export function recordsCsv(inspections: readonly Inspection[], actions: readonly CorrectiveAction[]): string {
  return [line(INSPECTION_COLUMNS), ...inspections.map((i) => line(inspectionCells(i))), "", line(CORRECTIVE_COLUMNS), ...actions.map((c) => line(correctiveCells(c)))].join("\r\n") + "\r\n";
}

function recordsModel(siteName: string, today: string, inspections: readonly Inspection[], actions: readonly CorrectiveAction[], datasetVersion: string): PlanModel {
  const value = (label: string, v: string | number | undefined): Block[] => (v === undefined || v === "" ? [] : [{ kind: "value", label, value: String(v), marker: null, source: "" }]);
  return {
    title: `Inspection and corrective-action records: ${siteName}`,
    draftBanner: null,
    footer: `${siteName} - records exported ${today}`,
    firstPage: [{ kind: "text", text: `Exported on ${today}. Every version of every inspection report is listed; a signed version never changes, and an amendment is a later version with its reason.` }, ...NOTICES.map((n): Block => ({ kind: "notice", text: n }))],
    sections: [
      {
        heading: "Inspection reports",
        blocks: inspections.flatMap((i): Block[] => {
          const r = i.report!;
          return [
            { kind: "heading", text: `Inspection of ${r.inspectedOn}, version ${i.version} (${i.status === InspectionStatus.SIGNED ? `signed by ${i.signedBy} on ${i.signedAt.slice(0, 10)}` : "not signed"})` },
            ...value("Amendment reason", i.amendmentReason),
            ...value("Time", [r.startTime, r.endTime].filter(Boolean).join(" to ")),
            ...value("Inspector", [r.inspector?.name, r.inspector?.role].filter(Boolean).join(", ")),
            ...value("Inspector's qualification", r.inspectorQualification),
            ...value("Type", typeWords(r)),
            ...value("Rain since the last inspection (inches)", r.rainfallInches),
            ...value("How the rain was measured", r.rainfallSource),
            ...value("Weather", r.weather),
            ...value("Phase of construction", r.phase),
            ...value("Areas inspected", r.areasInspected),
            ...value("Controls needing maintenance or repair", r.controlsNeedingRepair),
            ...value("Stabilization", r.stabilization),
            ...value("Discharges seen", r.dischargesSeen),
            ...value("Areas unsafe to inspect", r.unsafeAreas),
            // A report written before the fields existed: its summary's lines as written.
            ...(isLabelledSummary(r.summary) ? r.summary.split("\n").filter(Boolean).map((t): Block => ({ kind: "text", text: t })) : value("Other notes", r.summary)),
            ...value("Photos", photoWords(i).join("; ")),
            ...r.findings.map((f): Block => ({ kind: "text", text: `Finding${f.location ? ` at ${f.location}` : ""}: ${f.description}${f.needsCorrectiveAction ? " (corrective action needed)" : ""}` })),
            ...value("Fingerprint of the signed report (SHA-256)", i.reportSha256),
          ];
        }),
      },
      {
        heading: "Corrective actions",
        blocks: actions.flatMap((c): Block[] => [
          { kind: "heading", text: c.description },
          ...value("Found", c.foundOn),
          ...value("Due", dueWords(c) ? `${c.dueOn} (${dueWords(c)})` : c.dueOn),
          ...value("Status", c.status === CorrectiveActionStatus.COMPLETED ? `completed ${c.completedOn}` : "open"),
          ...c.events.map((e): Block => ({ kind: "text", text: `${e.occurredOn}: ${e.note}` })),
        ]),
      },
    ],
    createdAt: new Date(`${today}T00:00:00Z`),
    meta: { siteName, planVersion: 0, datasetVersion, permitVersion: null },
  };
}

export function recordRoutes(app: FastifyInstance, deps: AppDeps): void {
  const { sites } = deps.clients;
  const load = (req: unknown) => {
    const r = req as SignedIn;
    return siteRecords(sites, r, (r.params as { id: string }).id);
  };
  const disposition = (name: string, ext: string) => `attachment; filename="${fileStem(name)}-records.${ext}"`;

  app.get("/app/sites/:id/records.csv", { preHandler: requireSession }, async (req, reply) => {
    const rec = await load(req);
    return reply.type("text/csv; charset=utf-8").header("content-disposition", disposition(rec.site.details!.name, "csv")).send(recordsCsv(rec.inspections, rec.correctiveActions));
  });

  app.get("/app/sites/:id/records.pdf", { preHandler: requireSession }, async (req, reply) => {
    const rec = await load(req);
    const pdf = await renderPlanPdf(recordsModel(rec.site.details!.name, todayOf(deps), rec.inspections, rec.correctiveActions, rec.snapshot.datasetVersion));
    return reply.type("application/pdf").header("content-disposition", disposition(rec.site.details!.name, "pdf")).send(Buffer.from(pdf));
  });

  app.get("/app/sites/:id/records.zip", { preHandler: requireSession }, async (req, reply) => {
    const r = req as SignedIn;
    const { id } = req.params as { id: string };
    const out = await sites.exportSite({ ...who(r), siteId: id });
    return reply.type("application/zip").header("content-disposition", `attachment; filename="${out.fileName.replace(/[^A-Za-z0-9._-]/g, "_")}"`).send(Buffer.from(out.zip));
  });
}
