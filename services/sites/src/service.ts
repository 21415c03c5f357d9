// SitesService handlers: plain handler objects over one database, grouped by the records they keep.
import type { ServiceImpl } from "@connectrpc/connect";
import type { SitesService } from "@permits/proto/sites/v1/sites";
import type { SitesContext } from "./context.js";
import { actionHandlers } from "./handlers/actions.js";
import { dashboardHandlers } from "./handlers/dashboard.js";
import { inspectionHandlers } from "./handlers/inspections.js";
import { planHandlers } from "./handlers/plans.js";
import { sessionHandlers } from "./handlers/sessions.js";
import { siteHandlers } from "./handlers/sites.js";
import { trailHandlers } from "./handlers/trail.js";
import { rulesChangedHandlers } from "./alerts/rules-changed.js";
import { webhookHandlers } from "./handlers/webhooks.js";

export type { SitesContext };

export function createSitesService(ctx: SitesContext): ServiceImpl<typeof SitesService> {
  return { ...siteHandlers(ctx), ...dashboardHandlers(ctx), ...planHandlers(ctx), ...inspectionHandlers(ctx), ...actionHandlers(ctx), ...trailHandlers(ctx), ...webhookHandlers(ctx), ...sessionHandlers(ctx), ...rulesChangedHandlers(ctx) };
}
