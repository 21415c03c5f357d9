// What every handler shares: finding the account's site (another account's answers NotFound,
// never its data), running a change in one transaction with its audit event, and turning a
// database failure into a ConnectError without its text.
import { randomUUID } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import type { Clock, Logger } from "@permits/runtime";
import { resourceNotFound } from "@permits/rules";
import type { ExpressionBuilder, Transaction } from "kysely";
import { appendAudit, type AuditEntry } from "./audit.js";
import type { DatabaseKind, DeterminationRow, SiteRow, SitesDb, SitesTables } from "./db/schema.js";
import { Check, checkCaller, LIMITS } from "./validate.js";
import type { WebhookSettings } from "./webhooks/settings.js";

export interface SitesContext {
  db: SitesDb;
  kind: DatabaseKind;
  clock: Clock;
  logger?: Logger;
  /** Absent: webhook endpoints cannot be registered (no key to seal their secrets with). */
  webhooks?: WebhookSettings;
}

export interface SiteScoped {
  accountId: string;
  actor: string;
  siteId: string;
}

export type Trx = Transaction<SitesTables>;

/** A new record id: a prefix saying what it is, and 128 random bits. */
export function newId(prefix: string): string {
  return `${prefix}_${randomUUID().replaceAll("-", "")}`;
}

export function timestamp(ctx: SitesContext): string {
  return new Date(ctx.clock.now()).toISOString();
}

export function today(ctx: SitesContext): string {
  return timestamp(ctx).slice(0, 10);
}

/**
 * The id of the latest saved answer of the site of `d` (an alias of determinations), as a subquery:
 * for queries over many sites. "Latest" is the highest seq, here and in latestDetermination.
 */
export function latestDeterminationIdOf(eb: ExpressionBuilder<SitesTables & { d: DeterminationRow }, "d">) {
  return eb.selectFrom("determinations as l").select("l.id").whereRef("l.site_id", "=", "d.site_id").orderBy("l.seq", "desc").limit(1);
}

/** The site's latest saved answer (the one its plan and records follow), or undefined. */
export async function latestDetermination(q: SitesDb | Trx, siteId: string): Promise<DeterminationRow | undefined> {
  return q.selectFrom("determinations").selectAll().where("site_id", "=", siteId).orderBy("seq", "desc").limit(1).executeTakeFirst();
}

export function notFound(resource: string, id: string): ConnectError {
  return resourceNotFound(`no ${resource.replaceAll("_", " ")} ${id.slice(0, LIMITS.id)} in this account`, resource, id.slice(0, LIMITS.id), []);
}

export function failedPrecondition(message: string): ConnectError {
  return new ConnectError(message, Code.FailedPrecondition);
}

/** Checks the caller and the site id, plus whatever `more` checks, and refuses them together. */
export function checkScoped(req: SiteScoped, more?: (c: Check) => void): void {
  const c = checkCaller(new Check(), req).required("siteId", req.siteId, LIMITS.id);
  more?.(c);
  c.done();
}

async function siteOf(q: SitesDb | Trx, kind: DatabaseKind, req: SiteScoped, lock: boolean): Promise<SiteRow> {
  let query = q.selectFrom("sites").selectAll().where("id", "=", req.siteId).where("account_id", "=", req.accountId);
  // PostgreSQL: one writer per site at a time, so its audit chain cannot fork. SQLite's IMMEDIATE transaction already is.
  if (lock && kind === "postgres") query = query.forUpdate();
  const site = await query.executeTakeFirst();
  if (!site) throw notFound("site", req.siteId);
  return site;
}

/** Runs `fn` with the caller's site, outside a transaction (reads). */
export async function readSite<T>(ctx: SitesContext, req: SiteScoped, fn: (site: SiteRow) => Promise<T>): Promise<T> {
  return guard(ctx, async () => fn(await siteOf(ctx.db, ctx.kind, req, false)));
}

export interface Change<T> {
  result: T;
  audit: AuditEntry;
}

/**
 * Runs a change to an open site in one transaction, appending its audit event in the same one:
 * either both are stored or neither. A closed site's records are read-only.
 */
export async function changeSite<T>(ctx: SitesContext, req: SiteScoped, fn: (trx: Trx, site: SiteRow, at: string) => Promise<Change<T>>): Promise<T> {
  return guard(ctx, () =>
    ctx.db.transaction().execute(async (trx) => {
      const site = await siteOf(trx, ctx.kind, req, true);
      if (site.closed_on !== null) throw failedPrecondition(`the site was closed on ${site.closed_on}: its records are kept read-only until ${site.retain_until}`);
      const at = timestamp(ctx);
      const { result, audit } = await fn(trx, site, at);
      await appendAudit(trx, site.id, req.actor, at, audit);
      return result;
    }),
  );
}

/** pg's connection errors and PostgreSQL's shutdown and too-many-connections codes. */
const UNREACHABLE = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "ENOTFOUND", "57P01", "57P03", "53300"]);
/** SQLITE_BUSY and SQLITE_LOCKED: another process held the write lock past the busy timeout. */
const SQLITE_BUSY = new Set([5, 6]);

/** A ConnectError passes through; anything else is logged and answered without its text. */
export async function guard<T>(ctx: SitesContext, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof ConnectError) throw err;
    const { code, errcode } = err as { code?: unknown; errcode?: unknown };
    ctx.logger?.error({ err: err instanceof Error ? err.message : String(err), code }, "sites: database call failed");
    if ((typeof code === "string" && UNREACHABLE.has(code)) || (typeof errcode === "number" && SQLITE_BUSY.has(errcode & 0xff))) {
      throw new ConnectError("the sites database is unavailable", Code.Unavailable);
    }
    throw new ConnectError("internal", Code.Internal);
  }
}
