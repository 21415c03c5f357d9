// ListSitesForDashboard on SQLite and on PostgreSQL: every site of the account with its latest
// determination, its signed report versions, its rain and its overdue corrective actions, and never
// a record of another account.
import { expect, it } from "vitest";
import { InspectionStatus } from "@permits/proto/sites/v1/sites";
import { ACTOR, answer, Code, codeOf, eachDatabase, report, siteDetails } from "./testing.js";

const CERTIFICATION = "I certify under penalty of law that this document and all attachments were prepared under my direction or supervision.";

eachDatabase((h) => {
  it("answers each site with what its schedule needs, newest site first, and nothing of another account", async () => {
    const account = `acct_dash_${h().database.kind}`;
    const other = `acct_dash_other_${h().database.kind}`;
    const c = () => h().client;
    const named = (name: string) => ({ ...siteDetails(), name });
    const add = async (accountId: string, name: string) => (await c().createSite({ accountId, actor: ACTOR, details: named(name) })).site!.id;

    const busy = await add(account, "Busy site");
    const w = { accountId: account, actor: ACTOR, siteId: busy };
    await c().saveDetermination({ ...w, answerJson: answer() });
    h().clock.advance(1000);
    const latest = (await c().saveDetermination({ ...w, answerJson: answer({ id: "retention.records", years: 5, unit: "years" }) })).determination!;
    const first = (await c().createInspectionDraft({ ...w, report: report({ inspectedOn: "2026-11-20" }) })).inspection!;
    await c().signInspection({ ...w, inspectionId: first.id, signedBy: "Sam Ito", certification: CERTIFICATION });
    await c().amendInspection({ ...w, inspectionId: first.id, reason: "wrong date", report: report({ inspectedOn: "2026-11-21" }) });
    await c().signInspection({ ...w, inspectionId: first.id, signedBy: "Sam Ito", certification: CERTIFICATION });
    await c().createInspectionDraft({ ...w, report: report({ inspectedOn: "2026-11-27" }) }); // a draft: not an inspection done
    await c().addRainEvent({ ...w, occurredOn: "2026-11-25", inches: 0.6, measuredBy: "site gauge" });
    const action = (due: string) => c().openCorrectiveAction({ ...w, inspectionId: first.id, findingId: "f1", description: "clean the fence", foundOn: "2026-11-21", dueOn: due });
    await action("2026-11-24"); // open, overdue
    await action("2026-11-30"); // open, not yet due
    const done = (await action("2026-11-23")).correctiveAction!; // completed: not overdue
    await c().completeCorrectiveAction({ ...w, correctiveActionId: done.id, completedOn: "2026-11-23", note: "done" });
    h().clock.advance(1000);
    const empty = await add(account, "Empty site");

    // Another account's site with records of every kind.
    const theirs = await add(other, "Their site");
    const t = { accountId: other, actor: ACTOR, siteId: theirs };
    await c().saveDetermination({ ...t, answerJson: answer() });
    const their = (await c().createInspectionDraft({ ...t, report: report() })).inspection!;
    await c().signInspection({ ...t, inspectionId: their.id, signedBy: "Sam Ito", certification: CERTIFICATION });
    await c().openCorrectiveAction({ ...t, inspectionId: their.id, findingId: "f1", description: "theirs", foundOn: "2026-11-20", dueOn: "2026-11-21" });

    const { sites } = await c().listSitesForDashboard({ accountId: account, actor: ACTOR, asOf: "2026-11-28" });
    expect(sites.map((s) => [s.site!.id, s.site!.details!.name])).toEqual([
      [empty, "Empty site"],
      [busy, "Busy site"],
    ]);
    const [e, b] = sites;
    expect(e!.determination).toBeUndefined();
    expect(e!.signedInspections).toEqual([]);
    expect(e!.rainEvents).toEqual([]);
    expect(e!.overdueCorrectiveActions).toBe(0);

    expect(b!.determination!.id).toBe(latest.id);
    expect(b!.determination!.sha256).toBe(latest.sha256);
    expect(JSON.parse(Buffer.from(b!.determination!.answerJson).toString()).requirements[0].id).toBe("retention.records");
    expect(b!.signedInspections.map((i) => [i.id, i.version, i.status, i.report!.inspectedOn, i.superseded])).toEqual([
      [first.id, 1, InspectionStatus.SIGNED, "2026-11-20", true],
      [first.id, 2, InspectionStatus.SIGNED, "2026-11-21", false],
    ]);
    expect(b!.site!.lastInspectedOn).toBe("2026-11-21");
    expect(b!.rainEvents.map((r) => [r.occurredOn, r.inches, r.measuredBy])).toEqual([["2026-11-25", 0.6, "site gauge"]]);
    expect(b!.overdueCorrectiveActions).toBe(1);

    // The day moves: the second open action is overdue after its due date.
    expect((await c().listSitesForDashboard({ accountId: account, actor: ACTOR, asOf: "2026-12-01" })).sites[1]!.overdueCorrectiveActions).toBe(2);
    // The other account sees only its own site.
    const theirsListed = (await c().listSitesForDashboard({ accountId: other, actor: ACTOR, asOf: "2026-11-28" })).sites;
    expect(theirsListed.map((s) => [s.site!.id, s.signedInspections.length, s.overdueCorrectiveActions])).toEqual([[theirs, 1, 1]]);
    expect((await c().listSitesForDashboard({ accountId: "acct_dash_nobody", actor: ACTOR, asOf: "2026-11-28" })).sites).toEqual([]);
  });

  it("refuses a request without the account, the actor or a date", async () => {
    expect(await codeOf(h().client.listSitesForDashboard({ accountId: "acct_x", actor: ACTOR, asOf: "" }))).toBe(Code.InvalidArgument);
    expect(await codeOf(h().client.listSitesForDashboard({ accountId: "acct_x", actor: ACTOR, asOf: "28/11/2026" }))).toBe(Code.InvalidArgument);
    expect(await codeOf(h().client.listSitesForDashboard({ accountId: "", actor: ACTOR, asOf: "2026-11-28" }))).toBe(Code.InvalidArgument);
  });
});
