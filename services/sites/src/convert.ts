// Stored rows to the API's messages. Structured parts (site details, inspection reports) are
// stored as their proto JSON, so a stored record reads back exactly as it was written.
import { create, fromJsonString, toJsonString } from "@bufbuild/protobuf";
import {
  type CorrectiveAction,
  CorrectiveActionSchema,
  CorrectiveActionStatus,
  type DeterminationSnapshot,
  DeterminationSnapshotSchema,
  DueDateSource,
  type DueRule,
  DueRuleSchema,
  type Inspection,
  type InspectionReport,
  InspectionReportSchema,
  InspectionSchema,
  InspectionStatus,
  type Photo,
  PhotoSchema,
  type PlanVersion,
  PlanVersionSchema,
  type RainEvent,
  RainEventSchema,
  type Site,
  type SiteDetails,
  SiteDetailsSchema,
  SiteSchema,
} from "@permits/proto/sites/v1/sites";
import type { CorrectiveActionEventRow, CorrectiveActionRow, DeterminationRow, InspectionRow, PhotoRow, PlanVersionRow, RainEventRow, SiteRow } from "./db/schema.js";

export function detailsJson(d: SiteDetails): string {
  return toJsonString(SiteDetailsSchema, d);
}

export function reportJson(r: InspectionReport): string {
  return toJsonString(InspectionReportSchema, r);
}

export function toSite(row: SiteRow): Site {
  return create(SiteSchema, {
    id: row.id,
    details: fromJsonString(SiteDetailsSchema, row.details_json),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    closedOn: row.closed_on ?? undefined,
    retention: row.retain_until === null ? undefined : { retainUntil: row.retain_until, basis: row.retention_basis ?? "", requirementId: row.retention_requirement_id ?? "" },
    lastInspectedOn: row.last_inspected_on ?? undefined,
  });
}

export function toDetermination(row: DeterminationRow): DeterminationSnapshot {
  return create(DeterminationSnapshotSchema, {
    id: row.id,
    siteId: row.site_id,
    answerJson: new Uint8Array(row.answer_json),
    datasetVersion: row.dataset_version,
    permitId: row.permit_id,
    permitVersion: row.permit_version,
    savedAt: row.saved_at,
    sha256: row.sha256,
  });
}

export type PlanVersionMeta = Omit<PlanVersionRow, "docx" | "pdf">;

export function toPlanVersion(row: PlanVersionMeta): PlanVersion {
  return create(PlanVersionSchema, {
    id: row.id,
    siteId: row.site_id,
    version: Number(row.version),
    note: row.note,
    determinationId: row.determination_id,
    docxBytes: BigInt(row.docx_size),
    pdfBytes: BigInt(row.pdf_size),
    docxSha256: row.docx_sha256,
    pdfSha256: row.pdf_sha256,
    createdAt: row.created_at,
    createdBy: row.created_by,
  });
}

export type PhotoMeta = Omit<PhotoRow, "content">;

export function toPhoto(row: PhotoMeta): Photo {
  return create(PhotoSchema, { id: row.id, contentType: row.content_type, sizeBytes: BigInt(row.size_bytes), sha256: row.sha256, caption: row.caption, addedInVersion: Number(row.added_in_version) });
}

/** One version, with the photos added in it or before, and whether a later version exists. */
export function toInspection(row: InspectionRow, photos: readonly PhotoMeta[], latestVersion: number): Inspection {
  const version = Number(row.version);
  return create(InspectionSchema, {
    id: row.inspection_id,
    siteId: row.site_id,
    version,
    status: row.status === "signed" ? InspectionStatus.SIGNED : InspectionStatus.DRAFT,
    report: fromJsonString(InspectionReportSchema, row.report_json),
    amendmentReason: row.amendment_reason,
    signedBy: row.signed_by,
    certification: row.certification,
    signedAt: row.signed_at,
    reportSha256: row.report_sha256,
    photos: photos.filter((p) => p.inspection_id === row.inspection_id && Number(p.added_in_version) <= version).map(toPhoto),
    createdAt: row.created_at,
    superseded: version < latestVersion,
  });
}

const DUE_SOURCES: Record<string, DueDateSource> = { permit_rule: DueDateSource.PERMIT_RULE, operator: DueDateSource.OPERATOR };

/** A due date's source as stored ("" where it was not recorded). */
export function dueSourceColumn(source: DueDateSource): string {
  return Object.entries(DUE_SOURCES).find(([, v]) => v === source)?.[0] ?? "";
}

export function dueRuleJson(rule: DueRule | undefined): string {
  return rule ? toJsonString(DueRuleSchema, rule) : "";
}

export function toCorrectiveAction(row: CorrectiveActionRow, events: readonly CorrectiveActionEventRow[]): CorrectiveAction {
  return create(CorrectiveActionSchema, {
    id: row.id,
    siteId: row.site_id,
    inspectionId: row.inspection_id,
    findingId: row.finding_id,
    description: row.description,
    foundOn: row.found_on,
    dueOn: row.due_on,
    status: row.status === "completed" ? CorrectiveActionStatus.COMPLETED : CorrectiveActionStatus.OPEN,
    completedOn: row.completed_on,
    events: events.filter((e) => e.corrective_action_id === row.id).map((e) => ({ occurredOn: e.occurred_on, note: e.note, recordedBy: e.recorded_by, recordedAt: e.recorded_at })),
    dueSource: DUE_SOURCES[row.due_source] ?? DueDateSource.UNSPECIFIED,
    dueRule: row.due_rule_json ? fromJsonString(DueRuleSchema, row.due_rule_json) : undefined,
  });
}

export function toRainEvent(row: RainEventRow): RainEvent {
  return create(RainEventSchema, { id: row.id, siteId: row.site_id, occurredOn: row.occurred_on, inches: Number(row.inches), measuredBy: row.measured_by, recordedBy: row.recorded_by, recordedAt: row.recorded_at });
}
