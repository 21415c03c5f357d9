// One set of migrations for both databases: tables in Kysely's schema builder, and the guards
// (triggers) in each database's own trigger language, because neither understands the other's.
// Kysely's Migrator takes PostgreSQL's session advisory lock around a run (its PostgresAdapter),
// so replicas starting at once apply each migration once; SQLite runs them under its write lock.
import { type Kysely, sql } from "kysely";
import { type Migration, Migrator } from "kysely/migration";
import type { DatabaseKind } from "./schema.js";

/** Which tables refuse every UPDATE (a stored row is as it was written). */
const APPEND_ONLY = ["determinations", "plan_versions", "photos", "corrective_action_events", "rain_events", "audit_events"] as const;
/** Every table holding a site's records; each refuses DELETE until the site's retention has ended. */
const RETAINED = [...APPEND_ONLY, "inspections", "corrective_actions"] as const;

function tables(kind: DatabaseKind): Migration {
  const bytes = kind === "postgres" ? "bytea" : "blob";
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("sites")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("account_id", "text", (c) => c.notNull())
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("details_json", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .addColumn("closed_on", "text")
        .addColumn("retain_until", "text")
        .addColumn("retention_basis", "text")
        .addColumn("retention_requirement_id", "text")
        .addColumn("last_inspected_on", "text")
        .execute();
      await db.schema.createIndex("sites_by_account").on("sites").columns(["account_id", "created_at"]).execute();
      await db.schema.createIndex("sites_by_retention").on("sites").column("retain_until").execute();

      await db.schema
        .createTable("determinations")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("site_id", "text", (c) => c.notNull().references("sites.id"))
        .addColumn("answer_json", bytes, (c) => c.notNull())
        .addColumn("dataset_version", "text", (c) => c.notNull())
        .addColumn("permit_id", "text", (c) => c.notNull())
        .addColumn("permit_version", "text", (c) => c.notNull())
        .addColumn("sha256", "text", (c) => c.notNull())
        .addColumn("saved_at", "text", (c) => c.notNull())
        .addColumn("saved_by", "text", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("determinations_by_site").on("determinations").columns(["site_id", "saved_at"]).execute();

      await db.schema
        .createTable("plan_versions")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("site_id", "text", (c) => c.notNull().references("sites.id"))
        .addColumn("version", "integer", (c) => c.notNull())
        .addColumn("note", "text", (c) => c.notNull())
        .addColumn("determination_id", "text", (c) => c.notNull())
        .addColumn("docx", bytes, (c) => c.notNull())
        .addColumn("pdf", bytes, (c) => c.notNull())
        .addColumn("docx_size", "integer", (c) => c.notNull())
        .addColumn("pdf_size", "integer", (c) => c.notNull())
        .addColumn("docx_sha256", "text", (c) => c.notNull())
        .addColumn("pdf_sha256", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("created_by", "text", (c) => c.notNull())
        .addUniqueConstraint("plan_versions_site_version", ["site_id", "version"])
        .execute();

      await db.schema
        .createTable("inspections")
        .addColumn("inspection_id", "text", (c) => c.notNull())
        .addColumn("version", "integer", (c) => c.notNull())
        .addColumn("site_id", "text", (c) => c.notNull().references("sites.id"))
        .addColumn("status", "text", (c) => c.notNull().check(sql`status in ('draft', 'signed')`))
        .addColumn("inspected_on", "text", (c) => c.notNull())
        .addColumn("report_json", "text", (c) => c.notNull())
        .addColumn("amendment_reason", "text", (c) => c.notNull())
        .addColumn("signed_by", "text", (c) => c.notNull())
        .addColumn("certification", "text", (c) => c.notNull())
        .addColumn("signed_at", "text", (c) => c.notNull())
        .addColumn("report_sha256", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addPrimaryKeyConstraint("inspections_pk", ["inspection_id", "version"])
        .execute();
      await db.schema.createIndex("inspections_by_site").on("inspections").columns(["site_id", "inspected_on"]).execute();

      await db.schema
        .createTable("photos")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("site_id", "text", (c) => c.notNull().references("sites.id"))
        .addColumn("inspection_id", "text", (c) => c.notNull())
        .addColumn("added_in_version", "integer", (c) => c.notNull())
        .addColumn("content", bytes, (c) => c.notNull())
        .addColumn("content_type", "text", (c) => c.notNull())
        .addColumn("size_bytes", "integer", (c) => c.notNull())
        .addColumn("sha256", "text", (c) => c.notNull())
        .addColumn("caption", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addForeignKeyConstraint("photos_inspection", ["inspection_id", "added_in_version"], "inspections", ["inspection_id", "version"])
        .execute();
      await db.schema.createIndex("photos_by_inspection").on("photos").columns(["inspection_id", "added_in_version"]).execute();

      await db.schema
        .createTable("corrective_actions")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("site_id", "text", (c) => c.notNull().references("sites.id"))
        .addColumn("inspection_id", "text", (c) => c.notNull())
        .addColumn("finding_id", "text", (c) => c.notNull())
        .addColumn("description", "text", (c) => c.notNull())
        .addColumn("found_on", "text", (c) => c.notNull())
        .addColumn("due_on", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull().check(sql`status in ('open', 'completed')`))
        .addColumn("completed_on", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("corrective_actions_by_site").on("corrective_actions").columns(["site_id", "due_on"]).execute();

      await db.schema
        .createTable("corrective_action_events")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("site_id", "text", (c) => c.notNull().references("sites.id"))
        .addColumn("corrective_action_id", "text", (c) => c.notNull().references("corrective_actions.id"))
        .addColumn("seq", "integer", (c) => c.notNull())
        .addColumn("occurred_on", "text", (c) => c.notNull())
        .addColumn("note", "text", (c) => c.notNull())
        .addColumn("recorded_by", "text", (c) => c.notNull())
        .addColumn("recorded_at", "text", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("corrective_action_events_by_action").on("corrective_action_events").columns(["corrective_action_id", "seq"]).unique().execute();

      await db.schema
        .createTable("rain_events")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("site_id", "text", (c) => c.notNull().references("sites.id"))
        .addColumn("occurred_on", "text", (c) => c.notNull())
        .addColumn("inches", "double precision", (c) => c.notNull())
        .addColumn("measured_by", "text", (c) => c.notNull())
        .addColumn("recorded_by", "text", (c) => c.notNull())
        .addColumn("recorded_at", "text", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("rain_events_by_site").on("rain_events").columns(["site_id", "occurred_on"]).execute();

      await db.schema
        .createTable("audit_events")
        .addColumn("site_id", "text", (c) => c.notNull().references("sites.id"))
        .addColumn("seq", "integer", (c) => c.notNull())
        .addColumn("at", "text", (c) => c.notNull())
        .addColumn("actor", "text", (c) => c.notNull())
        .addColumn("action", "text", (c) => c.notNull())
        .addColumn("subject_id", "text", (c) => c.notNull())
        .addColumn("detail_json", "text", (c) => c.notNull())
        .addColumn("prev_hash", "text", (c) => c.notNull())
        .addColumn("hash", "text", (c) => c.notNull())
        .addPrimaryKeyConstraint("audit_events_pk", ["site_id", "seq"])
        .execute();
    },
  };
}

/**
 * The database's own refusals, so neither a bug nor a hand-written statement can rewrite a record:
 * - append-only tables refuse UPDATE; a signed inspection and a completed corrective action too;
 * - every record table refuses DELETE unless its site's retain_until has passed (the purge path);
 * - a closed site refuses any change, and closing must keep at least three years after the close
 *   date, which may not precede the site's creation: so retention cannot be shortened by an UPDATE
 *   to make a DELETE pass. (Dropping the triggers is DDL, which the service's role need not hold.)
 */
function sqliteGuards(): string[] {
  const today = "date('now')";
  const passed = (siteId: string) => `EXISTS (SELECT 1 FROM sites s WHERE s.id = ${siteId} AND s.retain_until IS NOT NULL AND s.retain_until < ${today})`;
  const out: string[] = [];
  for (const t of APPEND_ONLY) out.push(`CREATE TRIGGER ${t}_no_update BEFORE UPDATE ON ${t} BEGIN SELECT RAISE(ABORT, '${t}: a stored record cannot be changed'); END`);
  out.push(`CREATE TRIGGER inspections_signed_no_update BEFORE UPDATE ON inspections WHEN OLD.status = 'signed' BEGIN SELECT RAISE(ABORT, 'inspections: a signed inspection cannot be changed'); END`);
  out.push(`CREATE TRIGGER corrective_actions_completed_no_update BEFORE UPDATE ON corrective_actions WHEN OLD.status = 'completed' BEGIN SELECT RAISE(ABORT, 'corrective_actions: a completed corrective action cannot be changed'); END`);
  for (const t of RETAINED) out.push(`CREATE TRIGGER ${t}_retained BEFORE DELETE ON ${t} WHEN NOT ${passed("OLD.site_id")} BEGIN SELECT RAISE(ABORT, '${t}: records are kept until the site''s retention ends'); END`);
  out.push(`CREATE TRIGGER sites_retained BEFORE DELETE ON sites WHEN NOT (OLD.retain_until IS NOT NULL AND OLD.retain_until < ${today}) BEGIN SELECT RAISE(ABORT, 'sites: records are kept until the site''s retention ends'); END`);
  out.push(
    `CREATE TRIGGER sites_guard_update BEFORE UPDATE ON sites WHEN OLD.closed_on IS NOT NULL OR NEW.created_at <> OLD.created_at OR NEW.account_id <> OLD.account_id
     OR (NEW.closed_on IS NOT NULL AND (NEW.closed_on < substr(NEW.created_at, 1, 10) OR NEW.retain_until IS NULL OR NEW.retain_until < date(NEW.closed_on, '+3 years')))
     BEGIN SELECT RAISE(ABORT, 'sites: a closed site cannot change, and retention lasts at least three years after the close date'); END`,
  );
  return out;
}

function postgresGuards(): string[] {
  const today = "to_char(current_date, 'YYYY-MM-DD')";
  const out: string[] = [
    `CREATE FUNCTION sites_retention_passed(site text) RETURNS boolean LANGUAGE sql STABLE AS $$
       SELECT EXISTS (SELECT 1 FROM sites s WHERE s.id = site AND s.retain_until IS NOT NULL AND s.retain_until < ${today}) $$`,
    `CREATE FUNCTION sites_refuse_update() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN RAISE EXCEPTION '%: a stored record cannot be changed', TG_TABLE_NAME; END $$`,
    `CREATE FUNCTION sites_refuse_early_delete() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF sites_retention_passed(OLD.site_id) THEN RETURN OLD; END IF;
       RAISE EXCEPTION '%: records are kept until the site''s retention ends', TG_TABLE_NAME;
     END $$`,
    `CREATE FUNCTION sites_guard() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF TG_OP = 'DELETE' THEN
         IF OLD.retain_until IS NOT NULL AND OLD.retain_until < ${today} THEN RETURN OLD; END IF;
         RAISE EXCEPTION 'sites: records are kept until the site''s retention ends';
       END IF;
       IF OLD.closed_on IS NOT NULL OR NEW.created_at <> OLD.created_at OR NEW.account_id <> OLD.account_id
          OR (NEW.closed_on IS NOT NULL AND (NEW.closed_on < substr(NEW.created_at, 1, 10) OR NEW.retain_until IS NULL
              OR NEW.retain_until < to_char(NEW.closed_on::date + interval '3 years', 'YYYY-MM-DD'))) THEN
         RAISE EXCEPTION 'sites: a closed site cannot change, and retention lasts at least three years after the close date';
       END IF;
       RETURN NEW;
     END $$`,
    `CREATE TRIGGER sites_guard BEFORE UPDATE OR DELETE ON sites FOR EACH ROW EXECUTE FUNCTION sites_guard()`,
    `CREATE TRIGGER inspections_signed_no_update BEFORE UPDATE ON inspections FOR EACH ROW WHEN (OLD.status = 'signed') EXECUTE FUNCTION sites_refuse_update()`,
    `CREATE TRIGGER corrective_actions_completed_no_update BEFORE UPDATE ON corrective_actions FOR EACH ROW WHEN (OLD.status = 'completed') EXECUTE FUNCTION sites_refuse_update()`,
  ];
  for (const t of APPEND_ONLY) out.push(`CREATE TRIGGER ${t}_no_update BEFORE UPDATE ON ${t} FOR EACH ROW EXECUTE FUNCTION sites_refuse_update()`);
  for (const t of RETAINED) out.push(`CREATE TRIGGER ${t}_retained BEFORE DELETE ON ${t} FOR EACH ROW EXECUTE FUNCTION sites_refuse_early_delete()`);
  return out;
}

function guards(kind: DatabaseKind): Migration {
  return {
    async up(db: Kysely<unknown>) {
      for (const statement of kind === "postgres" ? postgresGuards() : sqliteGuards()) await sql.raw(statement).execute(db);
    },
  };
}

/** The outbox (events/outbox.ts). Not a retained record: no guards; a site's purge removes its events. */
const events: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("site_events")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("account_id", "text", (c) => c.notNull())
      .addColumn("site_id", "text", (c) => c.notNull())
      .addColumn("type", "text", (c) => c.notNull())
      .addColumn("dedup_key", "text", (c) => c.notNull().unique())
      .addColumn("data_json", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("site_events_by_account").on("site_events").columns(["account_id", "created_at"]).execute();
    await db.schema.createIndex("site_events_by_site").on("site_events").column("site_id").execute();
  },
};

/**
 * The rule changes found for a site (alerts/rules-changed.ts): one row per site and dataset version,
 * open until a determination is saved again. Not a retained record either: a site's purge removes them.
 */
const alerts: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("site_rules_changes")
      .addColumn("site_id", "text", (c) => c.notNull())
      .addColumn("account_id", "text", (c) => c.notNull())
      .addColumn("dataset_version", "text", (c) => c.notNull())
      .addColumn("previous_version", "text", (c) => c.notNull())
      .addColumn("changes_json", "text", (c) => c.notNull())
      .addColumn("marked_at", "text", (c) => c.notNull())
      .addColumn("cleared_at", "text")
      .addPrimaryKeyConstraint("site_rules_changes_pk", ["site_id", "dataset_version"])
      .execute();
    await db.schema.createIndex("site_rules_changes_by_version").on("site_rules_changes").column("dataset_version").execute();
  },
};

/**
 * The app's sign-in sessions (handlers/sessions.ts), kept here so that every gateway replica knows
 * every session. Not a retained record: no guards; a session ends at sign-out or when idle.
 */
const sessions: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("app_sessions")
      .addColumn("id_sha256", "text", (c) => c.primaryKey())
      .addColumn("account_id", "text", (c) => c.notNull())
      .addColumn("key_id", "text", (c) => c.notNull())
      .addColumn("plan", "integer", (c) => c.notNull())
      .addColumn("access", "integer", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("seen_at", "text", (c) => c.notNull())
      .addColumn("idle_limit_seconds", "integer", (c) => c.notNull())
      .addColumn("expires_at", "text", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("app_sessions_by_expiry").on("app_sessions").column("expires_at").execute();
  },
};

/**
 * Webhooks (webhooks/): an account's endpoints (the signing secrets encrypted, never hashed: they
 * must sign), one delivery per event and endpoint (the durable queue the worker claims from), and
 * each attempt's outcome (the delivery log). Not retained records: no guards.
 */
const webhooks: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("webhook_endpoints")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("account_id", "text", (c) => c.notNull())
      .addColumn("url", "text", (c) => c.notNull())
      .addColumn("events_json", "text", (c) => c.notNull())
      .addColumn("secret_sealed", "text", (c) => c.notNull())
      .addColumn("previous_secret_sealed", "text")
      .addColumn("previous_secret_until", "text")
      .addColumn("failing_since", "text")
      .addColumn("failing_reason", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("webhook_endpoints_by_account").on("webhook_endpoints").columns(["account_id", "created_at"]).execute();

    await db.schema
      .createTable("webhook_deliveries")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("endpoint_id", "text", (c) => c.notNull().references("webhook_endpoints.id"))
      .addColumn("account_id", "text", (c) => c.notNull())
      .addColumn("site_id", "text", (c) => c.notNull())
      .addColumn("event_id", "text", (c) => c.notNull())
      .addColumn("type", "text", (c) => c.notNull())
      .addColumn("payload", "text", (c) => c.notNull())
      .addColumn("state", "text", (c) => c.notNull().check(sql`state in ('pending', 'delivered', 'failed')`))
      .addColumn("attempts", "integer", (c) => c.notNull())
      .addColumn("next_attempt_at", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .addUniqueConstraint("webhook_deliveries_event_endpoint", ["event_id", "endpoint_id"])
      .execute();
    await db.schema.createIndex("webhook_deliveries_due").on("webhook_deliveries").columns(["state", "next_attempt_at"]).execute();
    await db.schema.createIndex("webhook_deliveries_by_site").on("webhook_deliveries").column("site_id").execute();

    await db.schema
      .createTable("webhook_attempts")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("delivery_id", "text", (c) => c.notNull().references("webhook_deliveries.id"))
      .addColumn("endpoint_id", "text", (c) => c.notNull())
      .addColumn("attempt", "integer", (c) => c.notNull())
      .addColumn("at", "text", (c) => c.notNull())
      .addColumn("status_code", "integer", (c) => c.notNull())
      .addColumn("error", "text", (c) => c.notNull())
      .addColumn("response_excerpt", "text", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("webhook_attempts_by_endpoint").on("webhook_attempts").columns(["endpoint_id", "at"]).execute();
    await db.schema.createIndex("webhook_attempts_by_delivery").on("webhook_attempts").column("delivery_id").execute();
  },
};

/** Where a corrective action's due date comes from. Rows before it keep "" (not recorded). */
const correctiveDueRule: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("corrective_actions").addColumn("due_source", "text", (c) => c.notNull().defaultTo("")).execute();
    await db.schema.alterTable("corrective_actions").addColumn("due_rule_json", "text", (c) => c.notNull().defaultTo("")).execute();
  },
};

/** Every migration by name, in order (the record Kysely's Migrator applies). */
export function migrations(kind: DatabaseKind): Record<string, Migration> {
  return { "0001_tables": tables(kind), "0002_guards": guards(kind), "0003_events": events, "0004_sessions": sessions, "0005_alerts": alerts, "0006_webhooks": webhooks, "0007_corrective_due_rule": correctiveDueRule };
}

/** Applies every pending migration; throws when one fails (the service then does not start). */
export async function migrate(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  const all = migrations(kind);
  // Unordered: migration numbers were handed out to work done side by side, so one may be merged
  // after a higher one was applied (0004_sessions after 0006_webhooks); each still runs once.
  const migrator = new Migrator({ db, provider: { getMigrations: async () => all }, migrationTableName: "sites_migrations", migrationLockTableName: "sites_migrations_lock", allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === "Error")?.migrationName ?? "(before any migration)";
    throw new Error(`sites database migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
