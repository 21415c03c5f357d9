// Sites that keep up with their rules: the gateway, at its start, asks which dataset versions open
// sites' saved answers were computed against, asks the stormwater service what changed since each,
// and hands both here. Each site whose latest saved answer, or the answer its latest plan was
// written against, cites a changed fact (cited-facts.ts) is marked, and a site.rules_changed event
// is recorded in the same transaction. The mark's key is the site and the dataset version loaded,
// so a restart, or several gateways starting at once, mark and tell once.
import { create, fromJson, toJson } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import { Confidence, type FactChange, FactChangeKind, FactChangeSchema, type FactChangeGroup, type FactState } from "@permits/proto/common/v1/common";
import { RulesChangeSchema, type RulesChange, type SitesService } from "@permits/proto/sites/v1/sites";
import { basisWordOf } from "@permits/rules";
import { appendAudit } from "../audit.js";
import { checkScoped, guard, latestDeterminationIdOf, readSite, type SitesContext, timestamp } from "../context.js";
import type { SiteRulesChangeRow, SitesDb } from "../db/schema.js";
import { recordEvent } from "../events/outbox.js";
import { Check, LIMITS } from "../validate.js";
import { citedChanges, scopeOfAnswer } from "./cited-facts.js";

type Handlers = Pick<ServiceImpl<typeof SitesService>, "listCitedDatasetVersions" | "markRulesChanged" | "listRulesChanges">;

/** Who the audit trail names for a mark: the service itself, not a person. */
const SYSTEM_ACTOR = "permits service (rules check)";

interface Cited {
  siteId: string;
  accountId: string;
  siteName: string;
  determinationId: string;
  datasetVersion: string;
  /** The site's latest saved answer (else: the one its latest plan cites). */
  latest: boolean;
}

/** The determinations open sites cite: each one's latest, and the one its latest plan was written against. */
async function citedDeterminations(db: SitesDb): Promise<Cited[]> {
  const base = () =>
    db.selectFrom("determinations as d").innerJoin("sites as s", "s.id", "d.site_id").where("s.closed_on", "is", null).select(["d.id", "d.site_id", "s.account_id", "s.name", "d.dataset_version"]);
  const [latest, planned] = await Promise.all([
    base().where("d.id", "=", latestDeterminationIdOf).execute(),
    base().where("d.id", "=", (eb) => eb.selectFrom("plan_versions as p").select("p.determination_id").whereRef("p.site_id", "=", "d.site_id").orderBy("p.version", "desc").limit(1)).execute(),
  ]);
  const row = (latestOne: boolean) => (r: (typeof latest)[number]): Cited => ({ siteId: r.site_id, accountId: r.account_id, siteName: r.name, determinationId: r.id, datasetVersion: r.dataset_version, latest: latestOne });
  const latestIds = new Set(latest.map((r) => r.id));
  return [...latest.map(row(true)), ...planned.filter((r) => !latestIds.has(r.id)).map(row(false))];
}

const CHANGE_WORDS = { [FactChangeKind.ADDED]: "added", [FactChangeKind.CHANGED]: "changed", [FactChangeKind.REMOVED]: "removed" } as Record<number, string>;

function publicState(s: FactState | undefined): Record<string, unknown> | null {
  if (!s) return null;
  return {
    value: s.value ? toJson(ValueSchema, s.value) : null,
    basis: basisWordOf(s.basis),
    confidence: s.confidence === Confidence.VERIFIED ? "verified" : "unverified",
    checkedOn: s.checkedOn ?? null,
    sourceCitation: s.sourceCitation ?? null,
    sourceUrl: s.sourceUrl ?? null,
    quote: s.quote ?? null,
  };
}

/** A changed fact in an event's body: the words GET /api/v1/changes uses for it. */
function publicChange(c: FactChange): Record<string, unknown> {
  return { fact: c.fact, change: CHANGE_WORDS[c.change] ?? "changed", datasetVersion: c.datasetVersion, before: publicState(c.before), after: publicState(c.after) };
}

function toRulesChange(r: SiteRulesChangeRow): RulesChange {
  const changes = (JSON.parse(r.changes_json) as unknown[]).map((c) => fromJson(FactChangeSchema, c as never));
  return create(RulesChangeSchema, { siteId: r.site_id, previousVersion: r.previous_version, datasetVersion: r.dataset_version, markedAt: r.marked_at, changes });
}

/** The open marks of the given sites, newest first. */
export async function openRulesChanges(db: SitesDb, siteIds: readonly string[]): Promise<Map<string, RulesChange[]>> {
  const out = new Map<string, RulesChange[]>();
  if (siteIds.length === 0) return out;
  const rows = await db.selectFrom("site_rules_changes").selectAll().where("site_id", "in", siteIds).where("cleared_at", "is", null).orderBy("marked_at", "desc").orderBy("dataset_version", "desc").execute();
  for (const r of rows) out.set(r.site_id, [...(out.get(r.site_id) ?? []), toRulesChange(r)]);
  return out;
}

/** A determination was saved: the site's open marks are acted on (its answer is of the data loaded now). */
export async function clearRulesChanges(trx: Parameters<typeof recordEvent>[0], siteId: string, at: string): Promise<void> {
  await trx.updateTable("site_rules_changes").set({ cleared_at: at }).where("site_id", "=", siteId).where("cleared_at", "is", null).execute();
}

function checkMarkRequest(version: string, changes: readonly { since: string; currentVersion: string }[]): void {
  const c = new Check().required("datasetVersion", version, LIMITS.shortText);
  changes.forEach((ch, i) => {
    c.required(`changes[${i}].since`, ch.since, LIMITS.shortText);
    if (ch.currentVersion !== version) c.add(`changes[${i}].currentVersion`, `changes[${i}].currentVersion must be the dataset version loaded now (${version.slice(0, LIMITS.shortText)})`);
  });
  c.done();
}

export function rulesChangedHandlers(ctx: SitesContext): Handlers {
  const { db } = ctx;

  /** Marks one site in its own transaction; true when this call marked it. */
  async function mark(site: Cited, previousVersion: string, datasetVersion: string, changes: FactChange[]): Promise<boolean> {
    return db.transaction().execute(async (trx) => {
      // PostgreSQL: the site's row is locked, as for any change, so its audit chain cannot fork.
      let lock = trx.selectFrom("sites").select("closed_on").where("id", "=", site.siteId);
      if (ctx.kind === "postgres") lock = lock.forUpdate();
      const now = await lock.executeTakeFirst();
      if (!now || now.closed_on !== null) return false;
      const at = timestamp(ctx);
      const changesJson = changes.map((c) => toJson(FactChangeSchema, c));
      const inserted = await trx
        .insertInto("site_rules_changes")
        .values({ site_id: site.siteId, account_id: site.accountId, dataset_version: datasetVersion, previous_version: previousVersion, changes_json: JSON.stringify(changesJson), marked_at: at, cleared_at: null })
        .onConflict((oc) => oc.columns(["site_id", "dataset_version"]).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 0) return false;
      await recordEvent(trx, {
        accountId: site.accountId,
        siteId: site.siteId,
        type: "site.rules_changed",
        dedupKey: `site.rules_changed:${site.siteId}:${datasetVersion}`,
        data: { site: { id: site.siteId, name: site.siteName }, previousVersion, datasetVersion, changes: changes.map(publicChange) },
        at,
      });
      await appendAudit(trx, site.siteId, SYSTEM_ACTOR, at, { action: "rules.changed", subjectId: datasetVersion, detail: { previousVersion, datasetVersion, facts: changes.map((c) => c.fact) } });
      return true;
    });
  }

  return {
    async listCitedDatasetVersions() {
      return guard(ctx, async () => ({ datasetVersions: [...new Set((await citedDeterminations(db)).map((c) => c.datasetVersion))].sort() }));
    },

    async markRulesChanged(req) {
      checkMarkRequest(req.datasetVersion, req.changes);
      const since = new Map<string, readonly FactChangeGroup[]>(req.changes.map((c) => [c.since, c.groups]));
      return guard(ctx, async () => {
        // Sites marked for this version already (a restart, another gateway) are not read again.
        const alreadyMarked = new Set((await db.selectFrom("site_rules_changes").select("site_id").where("dataset_version", "=", req.datasetVersion).execute()).map((r) => r.site_id));
        const cited = (await citedDeterminations(db)).filter((c) => c.datasetVersion !== req.datasetVersion && since.has(c.datasetVersion) && !alreadyMarked.has(c.siteId));
        const answers = new Map<string, string>();
        for (let i = 0; i < cited.length; i += 500) {
          const rows = await db.selectFrom("determinations").select(["id", "answer_json"]).where("id", "in", cited.slice(i, i + 500).map((c) => c.determinationId)).execute();
          for (const r of rows) answers.set(r.id, new TextDecoder().decode(r.answer_json));
        }
        // Per site: the latest answer's changes first, then those only the plan's answer cites.
        const bySite = new Map<string, Cited[]>();
        for (const c of cited) bySite.set(c.siteId, [...(bySite.get(c.siteId) ?? []), c].sort((a, b) => Number(b.latest) - Number(a.latest)));
        let marked = 0;
        for (const [, list] of [...bySite].sort(([a], [b]) => (a < b ? -1 : 1))) {
          const facts = new Map<string, FactChange>();
          let previousVersion = "";
          for (const c of list) {
            const found = citedChanges(scopeOfAnswer(answers.get(c.determinationId) ?? ""), since.get(c.datasetVersion)!);
            if (found.length > 0 && previousVersion === "") previousVersion = c.datasetVersion;
            for (const f of found) if (!facts.has(f.fact)) facts.set(f.fact, f);
          }
          if (facts.size === 0) continue;
          const changes = [...facts.values()].sort((a, b) => (a.fact < b.fact ? -1 : 1));
          if (await mark(list[0], previousVersion, req.datasetVersion, changes)) marked++;
        }
        return { marked };
      });
    },

    async listRulesChanges(req) {
      checkScoped(req);
      return readSite(ctx, req, async (site) => ({ rulesChanges: (await openRulesChanges(db, [site.id])).get(site.id) ?? [] }));
    },
  };
}
