// Corrective actions (opened from what an inspection found, with dated notes, completed once)
// and rain events entered by hand.
import type { ServiceImpl } from "@connectrpc/connect";
import { CorrectiveActionFilter, DueDateSource, type SitesService } from "@permits/proto/sites/v1/sites";
import { invalidArgument, ViolationReason } from "@permits/rules";
import { changeSite, checkScoped, failedPrecondition, latestDetermination, newId, notFound, readSite, type SitesContext, type Trx } from "../context.js";
import { dueRuleJson, dueSourceColumn, toCorrectiveAction, toRainEvent } from "../convert.js";
import type { CorrectiveActionRow, SiteRow } from "../db/schema.js";
import { checkDueSource, LIMITS } from "../validate.js";

type Handlers = Pick<ServiceImpl<typeof SitesService>, "openCorrectiveAction" | "addCorrectiveActionEvent" | "completeCorrectiveAction" | "listCorrectiveActions" | "addRainEvent" | "listRainEvents">;

async function openAction(trx: Trx, site: SiteRow, id: string): Promise<CorrectiveActionRow> {
  const row = await trx.selectFrom("corrective_actions").selectAll().where("id", "=", id).where("site_id", "=", site.id).executeTakeFirst();
  if (!row) throw notFound("corrective_action", id);
  if (row.status === "completed") throw failedPrecondition(`corrective action ${id} was completed on ${row.completed_on}: it cannot change`);
  return row;
}

async function eventsOf(trx: Trx, actionId: string) {
  return trx.selectFrom("corrective_action_events").selectAll().where("corrective_action_id", "=", actionId).orderBy("seq").execute();
}

/** Records a note on an open corrective action, numbered after the ones before it. */
async function addEvent(trx: Trx, action: CorrectiveActionRow, occurredOn: string, note: string, actor: string, at: string): Promise<void> {
  const last = await trx.selectFrom("corrective_action_events").select("seq").where("corrective_action_id", "=", action.id).orderBy("seq", "desc").limit(1).executeTakeFirst();
  await trx.insertInto("corrective_action_events").values({ id: newId("cae"), site_id: action.site_id, corrective_action_id: action.id, seq: (last ? Number(last.seq) : 0) + 1, occurred_on: occurredOn, note: note.trim(), recorded_by: actor, recorded_at: at }).execute();
}

/** A rule a due date follows must be one of the corrective-action rules the site's latest saved answer holds. */
async function checkRuleHeld(trx: Trx, site: SiteRow, requirementId: string): Promise<void> {
  const det = await latestDetermination(trx, site.id);
  const answer = det ? (JSON.parse(new TextDecoder().decode(det.answer_json)) as { requirements?: Array<{ id?: unknown }> }) : {};
  const held = (answer.requirements ?? []).map((r) => r.id).filter((id): id is string => typeof id === "string" && id.startsWith("corrective."));
  if (held.includes(requirementId)) return;
  const description = held.length ? `the site's saved answer holds no corrective-action rule "${requirementId}"` : "the site's saved answer holds no corrective-action rule: give the operator's date (dueSource operator) without a rule";
  throw invalidArgument("dueRule.requirementId is not a rule of the site's permit", [{ field: "dueRule.requirementId", description, reason: ViolationReason.UNKNOWN_VALUE, knownValues: held }]);
}

function notBefore(field: string, date: string, earliest: string, what: string): void {
  if (date < earliest) throw invalidArgument(`${field} is before ${what}`, [{ field, description: `${field} (${date}) must not be before ${what} (${earliest})`, reason: ViolationReason.MALFORMED }]);
}

export function actionHandlers(ctx: SitesContext): Handlers {
  const { db } = ctx;
  return {
    async openCorrectiveAction(req) {
      checkScoped(req, (c) => {
        c.required("inspectionId", req.inspectionId, LIMITS.id).optional("findingId", req.findingId, 40).required("description", req.description, LIMITS.text).date("foundOn", req.foundOn).date("dueOn", req.dueOn);
        checkDueSource(c, req.dueSource, req.dueRule);
      });
      notBefore("dueOn", req.dueOn, req.foundOn, "foundOn");
      return changeSite(ctx, req, async (trx, site, at) => {
        const report = await trx.selectFrom("inspections").select(["report_json"]).where("inspection_id", "=", req.inspectionId).where("site_id", "=", site.id).orderBy("version", "desc").limit(1).executeTakeFirst();
        if (!report) throw notFound("inspection", req.inspectionId);
        if (req.dueRule && req.dueSource !== DueDateSource.UNSPECIFIED) await checkRuleHeld(trx, site, req.dueRule.requirementId);
        if (req.findingId !== "") {
          const findings = (JSON.parse(report.report_json) as { findings?: Array<{ id: string }> }).findings ?? [];
          if (!findings.some((f) => f.id === req.findingId)) {
            throw invalidArgument("findingId is not a finding of the inspection", [{ field: "findingId", description: `the inspection's latest version has no finding "${req.findingId}"`, reason: ViolationReason.UNKNOWN_VALUE, knownValues: findings.map((f) => f.id) }]);
          }
        }
        const row: CorrectiveActionRow = { id: newId("ca"), site_id: site.id, inspection_id: req.inspectionId, finding_id: req.findingId, description: req.description.trim(), found_on: req.foundOn, due_on: req.dueOn, status: "open", completed_on: "", created_at: at, due_source: dueSourceColumn(req.dueSource), due_rule_json: dueRuleJson(req.dueRule) };
        await trx.insertInto("corrective_actions").values(row).execute();
        return { result: { correctiveAction: toCorrectiveAction(row, []) }, audit: { action: "corrective_action.opened", subjectId: row.id, detail: { inspectionId: row.inspection_id, findingId: row.finding_id, description: row.description, foundOn: row.found_on, dueOn: row.due_on, dueSource: row.due_source, dueRule: req.dueRule?.requirementId ?? "" } } };
      });
    },

    async addCorrectiveActionEvent(req) {
      checkScoped(req, (c) => c.required("correctiveActionId", req.correctiveActionId, LIMITS.id).date("occurredOn", req.occurredOn).required("note", req.note, LIMITS.text));
      return changeSite(ctx, req, async (trx, site, at) => {
        const action = await openAction(trx, site, req.correctiveActionId);
        await addEvent(trx, action, req.occurredOn, req.note, req.actor, at);
        return { result: { correctiveAction: toCorrectiveAction(action, await eventsOf(trx, action.id)) }, audit: { action: "corrective_action.noted", subjectId: action.id, detail: { occurredOn: req.occurredOn, note: req.note.trim() } } };
      });
    },

    async completeCorrectiveAction(req) {
      checkScoped(req, (c) => c.required("correctiveActionId", req.correctiveActionId, LIMITS.id).date("completedOn", req.completedOn).required("note", req.note, LIMITS.text));
      return changeSite(ctx, req, async (trx, site, at) => {
        const action = await openAction(trx, site, req.correctiveActionId);
        notBefore("completedOn", req.completedOn, action.found_on, "the date it was found");
        await addEvent(trx, action, req.completedOn, req.note, req.actor, at);
        await trx.updateTable("corrective_actions").set({ status: "completed", completed_on: req.completedOn }).where("id", "=", action.id).execute();
        const row = { ...action, status: "completed" as const, completed_on: req.completedOn };
        return { result: { correctiveAction: toCorrectiveAction(row, await eventsOf(trx, action.id)) }, audit: { action: "corrective_action.completed", subjectId: action.id, detail: { completedOn: req.completedOn, note: req.note.trim(), late: req.completedOn > action.due_on } } };
      });
    },

    async listCorrectiveActions(req) {
      const overdue = req.filter === CorrectiveActionFilter.OVERDUE;
      checkScoped(req, (c) => {
        if (!(req.filter in CorrectiveActionFilter)) c.add("filter", "filter must be all, open or overdue", ViolationReason.UNKNOWN_VALUE);
        c.date("asOf", req.asOf, overdue);
      });
      return readSite(ctx, req, async (site) => {
        let q = db.selectFrom("corrective_actions").selectAll().where("site_id", "=", site.id);
        if (req.filter !== CorrectiveActionFilter.UNSPECIFIED) q = q.where("status", "=", "open");
        if (overdue) q = q.where("due_on", "<", req.asOf);
        const rows = await q.orderBy("due_on").orderBy("id").execute();
        const events = await db.selectFrom("corrective_action_events").selectAll().where("site_id", "=", site.id).orderBy("corrective_action_id").orderBy("seq").execute();
        return { correctiveActions: rows.map((r) => toCorrectiveAction(r, events)) };
      });
    },

    async addRainEvent(req) {
      checkScoped(req, (c) => c.date("occurredOn", req.occurredOn).number("inches", req.inches, 0, LIMITS.maxInches).required("measuredBy", req.measuredBy, LIMITS.shortText));
      return changeSite(ctx, req, async (trx, site, at) => {
        const row = { id: newId("rain"), site_id: site.id, occurred_on: req.occurredOn, inches: req.inches, measured_by: req.measuredBy.trim(), recorded_by: req.actor, recorded_at: at };
        await trx.insertInto("rain_events").values(row).execute();
        return { result: { rainEvent: toRainEvent(row) }, audit: { action: "rain.recorded", subjectId: row.id, detail: { occurredOn: row.occurred_on, inches: row.inches, measuredBy: row.measured_by } } };
      });
    },

    async listRainEvents(req) {
      checkScoped(req);
      return readSite(ctx, req, async (site) => {
        const rows = await db.selectFrom("rain_events").selectAll().where("site_id", "=", site.id).orderBy("occurred_on").orderBy("recorded_at").orderBy("id").execute();
        return { rainEvents: rows.map(toRainEvent) };
      });
    },
  };
}
