// The tables as Kysely sees them. Times are RFC 3339 text and dates yyyy-mm-dd text in both
// databases (they compare as text and export byte for byte alike); flags are 0/1 integers, which
// node:sqlite binds and PostgreSQL stores alike.
import type { Kysely } from "kysely";
import type { SqlKind } from "@permits/state/sql";

export interface SiteRow {
  id: string;
  account_id: string;
  name: string;
  /** SiteDetails as proto JSON. */
  details_json: string;
  created_at: string;
  updated_at: string;
  closed_on: string | null;
  retain_until: string | null;
  retention_basis: string | null;
  retention_requirement_id: string | null;
  last_inspected_on: string | null;
}

export interface DeterminationRow {
  id: string;
  site_id: string;
  answer_json: Uint8Array;
  dataset_version: string;
  permit_id: string;
  permit_version: string;
  sha256: string;
  saved_at: string;
  saved_by: string;
}

export interface PlanVersionRow {
  id: string;
  site_id: string;
  version: number;
  note: string;
  determination_id: string;
  docx: Uint8Array;
  pdf: Uint8Array;
  docx_size: number;
  pdf_size: number;
  docx_sha256: string;
  pdf_sha256: string;
  created_at: string;
  created_by: string;
}

export interface InspectionRow {
  inspection_id: string;
  version: number;
  site_id: string;
  status: "draft" | "signed";
  inspected_on: string;
  /** InspectionReport as proto JSON. */
  report_json: string;
  amendment_reason: string;
  signed_by: string;
  certification: string;
  signed_at: string;
  report_sha256: string;
  created_at: string;
}

export interface PhotoRow {
  id: string;
  site_id: string;
  inspection_id: string;
  added_in_version: number;
  content: Uint8Array;
  content_type: string;
  size_bytes: number;
  sha256: string;
  caption: string;
  created_at: string;
}

export interface CorrectiveActionRow {
  id: string;
  site_id: string;
  inspection_id: string;
  finding_id: string;
  description: string;
  found_on: string;
  due_on: string;
  status: "open" | "completed";
  completed_on: string;
  created_at: string;
  /** "permit_rule", "operator", or "" for an action opened before the source was kept (0007). */
  due_source: string;
  /** DueRule as proto JSON; "" when none. */
  due_rule_json: string;
}

export interface CorrectiveActionEventRow {
  id: string;
  site_id: string;
  corrective_action_id: string;
  /** 1, 2, ... per corrective action: the order the notes were recorded in. */
  seq: number;
  occurred_on: string;
  note: string;
  recorded_by: string;
  recorded_at: string;
}

export interface RainEventRow {
  id: string;
  site_id: string;
  occurred_on: string;
  inches: number;
  measured_by: string;
  recorded_by: string;
  recorded_at: string;
}

export interface AuditEventRow {
  site_id: string;
  seq: number;
  at: string;
  actor: string;
  action: string;
  subject_id: string;
  detail_json: string;
  prev_hash: string;
  hash: string;
}

/** The outbox (events/outbox.ts): one row per condition a customer may be told about. */
export interface SiteEventRow {
  /** `evt_…`: the webhook-id of every delivery of this event. */
  id: string;
  account_id: string;
  /** Empty for an account-wide event. */
  site_id: string;
  type: string;
  /** Unique: one event per reported condition. */
  dedup_key: string;
  data_json: string;
  created_at: string;
}

/** A site marked because facts its saved answer cites changed in a dataset version (alerts/rules-changed.ts). */
export interface SiteRulesChangeRow {
  site_id: string;
  account_id: string;
  /** The dataset version loaded when the change was found: one mark per site and version, ever. */
  dataset_version: string;
  /** The dataset version of the saved answer compared. */
  previous_version: string;
  /** The changed facts the site cites, as permits.common.v1.FactChange JSON (a list). */
  changes_json: string;
  marked_at: string;
  /** When a determination was saved again for the site; null while the mark is open. */
  cleared_at: string | null;
}

/** An app sign-in session (handlers/sessions.ts), found by the SHA-256 of its id. */
export interface AppSessionRow {
  id_sha256: string;
  account_id: string;
  key_id: string;
  /** The Plan and AppAccess enums' numbers (permits.entitlement.v1). */
  plan: number;
  access: number;
  created_at: string;
  seen_at: string;
  idle_limit_seconds: number;
  /** seen_at plus the idle limit: the session is gone from this instant on. */
  expires_at: string;
}

/** An account's webhook endpoint (webhooks/). */
export interface WebhookEndpointRow {
  /** `whe_…` */
  id: string;
  account_id: string;
  url: string;
  /** The event types it receives, as a JSON array. */
  events_json: string;
  /** The signing secret, AES-256-GCM sealed (webhooks/secrets.ts). */
  secret_sealed: string;
  /** The secret before the last rotation, which also signs until previous_secret_until. */
  previous_secret_sealed: string | null;
  previous_secret_until: string | null;
  /** Set when a delivery gave up (3 days without success); cleared by the next success. */
  failing_since: string | null;
  /** Why, in plain words; empty when not failing. */
  failing_reason: string;
  created_at: string;
}

/** One event to one endpoint: the queue the delivery worker claims from. */
export interface WebhookDeliveryRow {
  /** `whd_…` */
  id: string;
  endpoint_id: string;
  account_id: string;
  /** The event's site; empty for an account-wide or test event (a site's purge removes its deliveries). */
  site_id: string;
  /** The event's id (`evt_…`): the webhook-id of every attempt. */
  event_id: string;
  type: string;
  /** The JSON body, fixed when the delivery is queued so every attempt sends the same bytes. */
  payload: string;
  state: "pending" | "delivered" | "failed";
  attempts: number;
  /** When the worker may next try; a claimed delivery's is pushed past the attempt's timeout (its lease). */
  next_attempt_at: string;
  created_at: string;
}

/** One attempt's outcome: the delivery log. */
export interface WebhookAttemptRow {
  id: string;
  delivery_id: string;
  endpoint_id: string;
  /** 1, 2, ... per delivery. */
  attempt: number;
  at: string;
  /** The HTTP status; 0 when no answer came. */
  status_code: number;
  /** Why it did not count as delivered, in plain words; empty on success. */
  error: string;
  /** The start of the response body, at most 1 KB. */
  response_excerpt: string;
}

export interface SitesTables {
  sites: SiteRow;
  determinations: DeterminationRow;
  plan_versions: PlanVersionRow;
  inspections: InspectionRow;
  photos: PhotoRow;
  corrective_actions: CorrectiveActionRow;
  corrective_action_events: CorrectiveActionEventRow;
  rain_events: RainEventRow;
  audit_events: AuditEventRow;
  site_events: SiteEventRow;
  site_rules_changes: SiteRulesChangeRow;
  app_sessions: AppSessionRow;
  webhook_endpoints: WebhookEndpointRow;
  webhook_deliveries: WebhookDeliveryRow;
  webhook_attempts: WebhookAttemptRow;
}

export type SitesDb = Kysely<SitesTables>;

/** The tables a site's records live in, children first: the order a purge deletes in. */
export const RECORD_TABLES = ["audit_events", "photos", "corrective_action_events", "corrective_actions", "rain_events", "inspections", "plan_versions", "determinations"] as const;

export type DatabaseKind = SqlKind;
