// Another account's site answers NotFound on every operation, and so does a record of another
// site of the same account: table-driven over every RPC that names a site, on both databases.
import { beforeAll, describe, expect, it } from "vitest";
import { SitesService, PlanFormat } from "@permits/proto/sites/v1/sites";
import { resourceNotFoundOf } from "@permits/rules";
import { ACCOUNT, ACTOR, answer, Code, DOCX, eachDatabase, failure, JPEG, newSite, OTHER_ACCOUNT, PDF, report, siteDetails } from "./testing.js";

interface Ids {
  planId: string;
  draftId: string;
  signedId: string;
  photoId: string;
  caId: string;
}

type Call = (ids: Ids) => Record<string, unknown>;

/** A valid request body per RPC (beyond account, actor and site), naming site A's records. */
const REQUESTS: Record<string, Call> = {
  getSite: () => ({}),
  updateSite: () => ({ details: siteDetails() }),
  closeSite: () => ({ closedOn: "2026-11-28" }),
  saveDetermination: () => ({ answerJson: answer() }),
  getDetermination: () => ({}),
  addPlanVersion: () => ({ docx: DOCX, pdf: PDF }),
  listPlanVersions: () => ({}),
  getPlanDocument: (ids) => ({ planId: ids.planId, format: PlanFormat.PDF }),
  createInspectionDraft: () => ({ report: report() }),
  updateInspectionDraft: (ids) => ({ inspectionId: ids.draftId, report: report() }),
  signInspection: (ids) => ({ inspectionId: ids.draftId, signedBy: "Sam Ito", certification: "I certify under penalty of law." }),
  amendInspection: (ids) => ({ inspectionId: ids.signedId, reason: "typo", report: report() }),
  listInspections: () => ({}),
  getInspection: (ids) => ({ inspectionId: ids.signedId }),
  addInspectionPhoto: (ids) => ({ inspectionId: ids.draftId, content: JPEG }),
  getInspectionPhoto: (ids) => ({ photoId: ids.photoId }),
  openCorrectiveAction: (ids) => ({ inspectionId: ids.signedId, description: "Re-stake the fence", foundOn: "2026-11-20", dueOn: "2026-11-27" }),
  addCorrectiveActionEvent: (ids) => ({ correctiveActionId: ids.caId, occurredOn: "2026-11-21", note: "scheduled" }),
  completeCorrectiveAction: (ids) => ({ correctiveActionId: ids.caId, completedOn: "2026-11-21", note: "done" }),
  listCorrectiveActions: () => ({}),
  addRainEvent: () => ({ occurredOn: "2026-11-21", inches: 1, measuredBy: "gauge" }),
  listRainEvents: () => ({}),
  listAuditEvents: () => ({}),
  exportSite: () => ({}),
  listRulesChanges: () => ({}),
};
/** The RPCs that name no site: creating one, listing the account's (alone or for the dashboard), the administrators' purge, and the gateway's rules check (of every account). */
const WITHOUT_SITE = ["createSite", "listSites", "listSitesForDashboard", "purgeExpired", "listCitedDatasetVersions", "markRulesChanged"];
/** The app's sign-in sessions: found by the digest of an id only the signed-in browser holds, not by account (sessions.test.ts). */
const SESSIONS = ["createSession", "getSession", "makeSessionReadOnly", "endSession"];
/** The RPCs of an account's webhook endpoints, which name no site: their walls are tested in webhooks/webhooks.test.ts. */
const WEBHOOK_ENDPOINTS = ["createWebhookEndpoint", "listWebhookEndpoints", "updateWebhookEndpoint", "deleteWebhookEndpoint", "rotateWebhookSecret", "listWebhookAttempts", "sendTestWebhook"];
/** The RPCs that name a record of a site besides the site itself. */
const NAMING_RECORDS = ["getPlanDocument", "updateInspectionDraft", "signInspection", "amendInspection", "getInspection", "addInspectionPhoto", "getInspectionPhoto", "openCorrectiveAction", "addCorrectiveActionEvent", "completeCorrectiveAction"];

it("the table covers every RPC of the service", () => {
  expect([...Object.keys(REQUESTS), ...WITHOUT_SITE, ...WEBHOOK_ENDPOINTS, ...SESSIONS].sort()).toEqual(Object.values(SitesService.method).map((m) => m.localName).sort());
});

eachDatabase((h) => {
  let siteA = "";
  let siteB = "";
  let ids: Ids;
  let eventsBefore = 0;

  beforeAll(async () => {
    const c = h().client;
    siteA = await newSite(h());
    siteB = await newSite(h());
    const s = { accountId: ACCOUNT, actor: ACTOR, siteId: siteA };
    await c.saveDetermination({ ...s, answerJson: answer() });
    const planId = (await c.addPlanVersion({ ...s, docx: DOCX, pdf: PDF })).plan!.id;
    const signedId = (await c.createInspectionDraft({ ...s, report: report() })).inspection!.id;
    const photoId = (await c.addInspectionPhoto({ ...s, inspectionId: signedId, content: JPEG })).photo!.id;
    await c.signInspection({ ...s, inspectionId: signedId, signedBy: "Sam Ito", certification: "I certify under penalty of law." });
    const draftId = (await c.createInspectionDraft({ ...s, report: report() })).inspection!.id;
    const caId = (await c.openCorrectiveAction({ ...s, inspectionId: signedId, findingId: "f1", description: "Clean the fence", foundOn: "2026-11-20", dueOn: "2026-11-27" })).correctiveAction!.id;
    ids = { planId, draftId, signedId, photoId, caId };
    eventsBefore = (await c.listAuditEvents(s)).events.length;
  });

  describe.each(Object.entries(REQUESTS))("%s", (method, body) => {
    it("answers NotFound for another account's site, naming no data of it", async () => {
      const call = (h().client as unknown as Record<string, (r: unknown) => Promise<unknown>>)[method]!;
      const err = await failure(call({ accountId: OTHER_ACCOUNT, actor: ACTOR, siteId: siteA, ...body(ids) }));
      expect(err.code).toBe(Code.NotFound);
      expect(err.rawMessage).toBe(`no site ${siteA} in this account`);
      expect(resourceNotFoundOf(err)).toMatchObject({ resource: "site", requested: siteA, validValues: [] });
    });
    if (NAMING_RECORDS.includes(method)) {
      it("answers NotFound for a record of another site of the same account", async () => {
        const call = (h().client as unknown as Record<string, (r: unknown) => Promise<unknown>>)[method]!;
        const err = await failure(call({ accountId: ACCOUNT, actor: ACTOR, siteId: siteB, ...body(ids) }));
        expect(err.code).toBe(Code.NotFound);
        expect(resourceNotFoundOf(err)!.validValues).toEqual([]);
      });
    }
  });

  it("lists none of another account's sites, and the refused calls changed nothing", async () => {
    const { sites } = await h().client.listSites({ accountId: OTHER_ACCOUNT, actor: ACTOR });
    expect(sites.map((s) => s.id)).not.toContain(siteA);
    const dashboard = await h().client.listSitesForDashboard({ accountId: OTHER_ACCOUNT, actor: ACTOR, asOf: "2026-11-28" });
    expect(dashboard.sites.map((s) => s.site!.id)).not.toContain(siteA);
    const trail = await h().client.listAuditEvents({ accountId: ACCOUNT, actor: ACTOR, siteId: siteA });
    expect(trail.events).toHaveLength(eventsBefore);
    expect(trail.chainIntact).toBe(true);
  });
});
