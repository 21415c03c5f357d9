// The app's sign-in sessions, kept in the sites database so that every gateway replica knows every
// session (the gateway keeps no state of its own). A session is found by the SHA-256 of its id: the
// id itself stays in the visitor's cookie and the gateway. Whether a session is still live is
// decided here, by this service's clock: it ends `idle_limit_seconds` after it was last seen.
import type { ServiceImpl } from "@connectrpc/connect";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { AppAccess, Plan } from "@permits/proto/entitlement/v1/entitlement";
import type { AppSessionSchema, SitesService } from "@permits/proto/sites/v1/sites";
import { ViolationReason } from "@permits/rules";
import { guard, type SitesContext } from "../context.js";
import type { AppSessionRow } from "../db/schema.js";
import { Check, LIMITS } from "../validate.js";

type Handlers = Pick<ServiceImpl<typeof SitesService>, "createSession" | "getSession" | "makeSessionReadOnly" | "endSession">;

/** A session's last-seen time is written at most this often, not on every request (spares writes). */
const TOUCH_EVERY_MS = 60_000;
const IDLE_LIMIT_SECONDS = { min: 60, max: 7 * 24 * 3600 } as const;
const DIGEST = /^[0-9a-f]{64}$/;

function checkDigest(c: Check, digest: string): Check {
  return DIGEST.test(digest) ? c : c.add("idSha256", "idSha256 must be the SHA-256 of the session id as 64 lowercase hexadecimal digits", digest === "" ? ViolationReason.MISSING : ViolationReason.MALFORMED);
}

const iso = (ms: number) => new Date(ms).toISOString();

function toSession(row: AppSessionRow): MessageInitShape<typeof AppSessionSchema> {
  return { accountId: row.account_id, keyId: row.key_id, plan: row.plan, access: row.access, createdAt: row.created_at, seenAt: row.seen_at, idleLimitSeconds: row.idle_limit_seconds };
}

export function sessionHandlers(ctx: SitesContext): Handlers {
  const { db } = ctx;
  return {
    async createSession(req) {
      const c = checkDigest(new Check(), req.idSha256).required("accountId", req.accountId, LIMITS.accountId).required("keyId", req.keyId, LIMITS.id);
      if (!(req.plan in Plan)) c.add("plan", `plan ${req.plan} is not a plan`);
      if (req.access !== AppAccess.WORKSPACE && req.access !== AppAccess.READ_ONLY) c.add("access", "access must be APP_ACCESS_WORKSPACE or APP_ACCESS_READ_ONLY", ViolationReason.MALFORMED, ["APP_ACCESS_WORKSPACE", "APP_ACCESS_READ_ONLY"]);
      c.number("idleLimitSeconds", req.idleLimitSeconds, IDLE_LIMIT_SECONDS.min, IDLE_LIMIT_SECONDS.max).done();
      const now = ctx.clock.now();
      const row: AppSessionRow = {
        id_sha256: req.idSha256,
        account_id: req.accountId,
        key_id: req.keyId,
        plan: req.plan,
        access: req.access,
        created_at: iso(now),
        seen_at: iso(now),
        idle_limit_seconds: req.idleLimitSeconds,
        expires_at: iso(now + req.idleLimitSeconds * 1000),
      };
      return guard(ctx, () =>
        db.transaction().execute(async (trx) => {
          // The sweep: rows are only added here, so removing the idle ones at each sign-in bounds the table.
          await trx.deleteFrom("app_sessions").where("expires_at", "<=", iso(now)).execute();
          await trx.insertInto("app_sessions").values(row).execute();
          return { session: toSession(row) };
        }),
      );
    },

    async getSession(req) {
      checkDigest(new Check(), req.idSha256).done();
      return guard(ctx, async () => {
        const row = await db.selectFrom("app_sessions").selectAll().where("id_sha256", "=", req.idSha256).executeTakeFirst();
        if (!row) return {};
        const now = ctx.clock.now();
        if (row.expires_at <= iso(now)) {
          await db.deleteFrom("app_sessions").where("id_sha256", "=", row.id_sha256).where("expires_at", "<=", iso(now)).execute();
          return {};
        }
        if (now - Date.parse(row.seen_at) >= TOUCH_EVERY_MS) {
          row.seen_at = iso(now);
          row.expires_at = iso(now + row.idle_limit_seconds * 1000);
          await db.updateTable("app_sessions").set({ seen_at: row.seen_at, expires_at: row.expires_at }).where("id_sha256", "=", row.id_sha256).execute();
        }
        return { session: toSession(row) };
      });
    },

    async makeSessionReadOnly(req) {
      checkDigest(new Check(), req.idSha256).done();
      return guard(ctx, async () => {
        const result = await db.updateTable("app_sessions").set({ access: AppAccess.READ_ONLY }).where("id_sha256", "=", req.idSha256).where("expires_at", ">", iso(ctx.clock.now())).executeTakeFirst();
        return { found: result.numUpdatedRows > 0n };
      });
    },

    async endSession(req) {
      checkDigest(new Check(), req.idSha256).done();
      return guard(ctx, async () => {
        const result = await db.deleteFrom("app_sessions").where("id_sha256", "=", req.idSha256).executeTakeFirst();
        return { ended: result.numDeletedRows > 0n };
      });
    },
  };
}
