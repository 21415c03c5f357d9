// What an inspection record holds as fields (issue 40's form), photos added by an amendment, and
// the permit rule a corrective action's due date follows; on SQLite and PostgreSQL.
import { expect, it } from "vitest";
import { sql } from "kysely";
import { strFromU8, unzipSync } from "fflate";
import { badRequestOf } from "@permits/rules";
import { DueDateSource, InspectionType } from "@permits/proto/sites/v1/sites";
import { ACCOUNT, ACTOR, eachDatabase, failure, JPEG, newSite, PNG, report } from "./testing.js";

const CERTIFICATION = "I certify under penalty of law that this document and all attachments were prepared under my direction or supervision.";
const FIELDS = {
  inspectorQualification: "CPESC",
  type: InspectionType.STORM_EVENT,
  areasInspected: "whole site, both outfalls",
  controlsNeedingRepair: "north silt fence sagging",
  stabilization: "east slope seeded on 2026-11-10",
  dischargesSeen: "turbid water at outfall 2",
};
/** A federal-permit answer holding two corrective-action rules (and one other requirement). */
const CORRECTIVE_ANSWER = Buffer.from(JSON.stringify({ coverage: "required", permit: { id: "epa-cgp-2022", name: "Construction General Permit", version: "2022", authority: "epa" }, requirements: [{ id: "inspection.frequency", label: "Inspection frequency" }, { id: "corrective.minor", label: "Routine maintenance" }, { id: "corrective.major", label: "Corrective action" }], notices: [], datasetVersion: "2026-11-26.0c7761e066" }));
const MINOR = { requirementId: "corrective.minor", label: "Routine maintenance", deadline: "By the close of the next business day", citation: "CGP Part 2.1.4.b", confidence: "unverified" };

eachDatabase((h) => {
  const scoped = (siteId: string) => ({ accountId: ACCOUNT, actor: ACTOR, siteId });

  it("keeps each field of the form as its own field, through signing and an amendment", async () => {
    const siteId = await newSite(h());
    const draft = (await h().client.createInspectionDraft({ ...scoped(siteId), report: report({ ...FIELDS, summary: "" }) })).inspection!;
    await h().client.signInspection({ ...scoped(siteId), inspectionId: draft.id, signedBy: "Sam Ito", certification: CERTIFICATION });
    await h().client.amendInspection({ ...scoped(siteId), inspectionId: draft.id, reason: "outfall named wrong", report: report({ ...FIELDS, dischargesSeen: "turbid water at outfall 1", summary: "" }) });
    const v1 = (await h().client.getInspection({ ...scoped(siteId), inspectionId: draft.id, version: 1 })).inspection!.report!;
    const v2 = (await h().client.getInspection({ ...scoped(siteId), inspectionId: draft.id })).inspection!.report!;
    expect([v1.inspectorQualification, v1.type, v1.areasInspected, v1.controlsNeedingRepair, v1.stabilization, v1.dischargesSeen, v1.summary]).toEqual(["CPESC", InspectionType.STORM_EVENT, "whole site, both outfalls", "north silt fence sagging", "east slope seeded on 2026-11-10", "turbid water at outfall 2", ""]);
    expect(v2.dischargesSeen).toBe("turbid water at outfall 1");
    // In the export, as proto JSON fields.
    const zip = unzipSync((await h().client.exportSite(scoped(siteId))).zip);
    expect(JSON.parse(strFromU8(zip[`inspections/${draft.id}-v1.json`])).report).toMatchObject({ inspectorQualification: "CPESC", type: "INSPECTION_TYPE_STORM_EVENT", dischargesSeen: "turbid water at outfall 2" });
  });

  it("reads a report written before the fields existed exactly as it was written", async () => {
    const siteId = await newSite(h());
    const old = "Inspector's qualification: CPESC\nAreas inspected: whole site\nControls needing maintenance or repair: north fence";
    const draft = (await h().client.createInspectionDraft({ ...scoped(siteId), report: report({ summary: old }) })).inspection!;
    const back = (await h().client.getInspection({ ...scoped(siteId), inspectionId: draft.id })).inspection!.report!;
    expect([back.summary, back.type, back.stormTriggered, back.inspectorQualification, back.areasInspected]).toEqual([old, InspectionType.UNSPECIFIED, true, "", ""]);
  });

  it("refuses a type it does not know, a type that contradicts stormTriggered, and overlong fields", async () => {
    const siteId = await newSite(h());
    const bad = await failure(h().client.createInspectionDraft({ ...scoped(siteId), report: report({ type: 9 as InspectionType, inspectorQualification: "q".repeat(201), stabilization: "s".repeat(2001) }) }));
    expect(badRequestOf(bad)!.violations.map((v) => [v.field, v.description])).toEqual([
      ["report.inspectorQualification", "report.inspectorQualification must be at most 200 characters (got 201)"],
      ["report.stabilization", "report.stabilization must be at most 2000 characters (got 2001)"],
      ["report.type", "type must be routine, storm event or other"],
    ]);
    const contradiction = await failure(h().client.createInspectionDraft({ ...scoped(siteId), report: report({ type: InspectionType.ROUTINE, stormTriggered: true }) }));
    expect(badRequestOf(contradiction)!.violations.map((v) => v.field)).toEqual(["report.stormTriggered"]);
  });

  it("adds photos to an amendment, recorded with its version; the signed original keeps only its own", async () => {
    const siteId = await newSite(h());
    const draft = (await h().client.createInspectionDraft({ ...scoped(siteId), report: report() })).inspection!;
    const first = (await h().client.addInspectionPhoto({ ...scoped(siteId), inspectionId: draft.id, content: JPEG, caption: "fence.jpg" })).photo!;
    const signed = (await h().client.signInspection({ ...scoped(siteId), inspectionId: draft.id, signedBy: "Sam Ito", certification: CERTIFICATION })).inspection!;
    await h().client.amendInspection({ ...scoped(siteId), inspectionId: draft.id, reason: "photo of the repair added", report: report() });
    const added = (await h().client.addInspectionPhoto({ ...scoped(siteId), inspectionId: draft.id, content: PNG, caption: "repair.png" })).photo!;
    expect([added.addedInVersion, added.contentType]).toEqual([2, "image/png"]);
    await h().client.signInspection({ ...scoped(siteId), inspectionId: draft.id, signedBy: "Sam Ito", certification: CERTIFICATION });
    const v1 = (await h().client.getInspection({ ...scoped(siteId), inspectionId: draft.id, version: 1 })).inspection!;
    const v2 = (await h().client.getInspection({ ...scoped(siteId), inspectionId: draft.id })).inspection!;
    expect(v1.photos.map((p) => [p.id, p.addedInVersion])).toEqual([[first.id, 1]]);
    expect(v1.reportSha256).toBe(signed.reportSha256);
    expect(v2.photos.map((p) => [p.caption, p.addedInVersion])).toEqual([["fence.jpg", 1], ["repair.png", 2]]);
    // The 20-photo limit counts every version's photos.
    await h().client.amendInspection({ ...scoped(siteId), inspectionId: draft.id, reason: "more photos", report: report() });
    for (let n = 2; n < 20; n++) await h().client.addInspectionPhoto({ ...scoped(siteId), inspectionId: draft.id, content: PNG });
    expect((await failure(h().client.addInspectionPhoto({ ...scoped(siteId), inspectionId: draft.id, content: PNG }))).rawMessage).toBe("an inspection keeps at most 20 photos; this one has 20");
  });

  it("keeps the permit rule a corrective action's due date follows, or that the operator entered it", async () => {
    const siteId = await newSite(h());
    const inspection = (await h().client.createInspectionDraft({ ...scoped(siteId), report: report() })).inspection!;
    const base = { ...scoped(siteId), inspectionId: inspection.id, findingId: "f1", description: "Clean out the north silt fence", foundOn: "2026-11-20" };
    // No answer saved yet: no rule can be named.
    const noAnswer = await failure(h().client.openCorrectiveAction({ ...base, dueOn: "2026-11-23", dueSource: DueDateSource.PERMIT_RULE, dueRule: MINOR }));
    expect(badRequestOf(noAnswer)!.violations[0]).toMatchObject({ field: "dueRule.requirementId", description: "the site's saved answer holds no corrective-action rule: give the operator's date (dueSource operator) without a rule", knownValues: [] });
    await h().client.saveDetermination({ ...scoped(siteId), answerJson: CORRECTIVE_ANSWER });
    const notHeld = await failure(h().client.openCorrectiveAction({ ...base, dueOn: "2026-11-23", dueSource: DueDateSource.PERMIT_RULE, dueRule: { ...MINOR, requirementId: "corrective.repairs" } }));
    expect(badRequestOf(notHeld)!.violations[0]).toMatchObject({ field: "dueRule.requirementId", description: `the site's saved answer holds no corrective-action rule "corrective.repairs"`, knownValues: ["corrective.minor", "corrective.major"] });
    const byRule = (await h().client.openCorrectiveAction({ ...base, dueOn: "2026-11-23", dueSource: DueDateSource.PERMIT_RULE, dueRule: MINOR })).correctiveAction!;
    const byOperator = (await h().client.openCorrectiveAction({ ...base, dueOn: "2026-11-27", dueSource: DueDateSource.OPERATOR })).correctiveAction!;
    const { correctiveActions } = await h().client.listCorrectiveActions(scoped(siteId));
    expect(correctiveActions.map((c) => [c.id, c.dueOn, c.dueSource, c.dueRule?.requirementId, c.dueRule?.confidence])).toEqual([
      [byRule.id, "2026-11-23", DueDateSource.PERMIT_RULE, "corrective.minor", "unverified"],
      [byOperator.id, "2026-11-27", DueDateSource.OPERATOR, undefined, undefined],
    ]);
    expect(correctiveActions[0]!.dueRule).toMatchObject(MINOR);

    const missing = await failure(h().client.openCorrectiveAction({ ...base, dueOn: "2026-11-23", dueSource: DueDateSource.PERMIT_RULE }));
    expect(badRequestOf(missing)!.violations.map((v) => v.field)).toEqual(["dueRule"]);
    const wrong = await failure(h().client.openCorrectiveAction({ ...base, dueOn: "2026-11-23", dueSource: DueDateSource.PERMIT_RULE, dueRule: { ...MINOR, requirementId: "inspection.frequency", confidence: "sure" } }));
    expect(badRequestOf(wrong)!.violations.map((v) => v.description)).toEqual(['dueRule.requirementId must be a corrective-action rule (corrective.*), got "inspection.frequency"', "dueRule.confidence must be verified or unverified"]);
    const unsourced = await failure(h().client.openCorrectiveAction({ ...base, dueOn: "2026-11-23", dueRule: MINOR }));
    expect(badRequestOf(unsourced)!.violations.map((v) => v.field)).toEqual(["dueRule"]);
    // A rule chosen whose deadline gives no countable date: the operator's date, with the rule kept.
    const major = { requirementId: "corrective.major", label: "Corrective action", deadline: "No confirmed deadline is held for this rule", citation: "CGP Parts 5.1 and 5.2 (deadline not confirmed)", confidence: "unverified" };
    const own = (await h().client.openCorrectiveAction({ ...base, dueOn: "2026-11-30", dueSource: DueDateSource.OPERATOR, dueRule: major })).correctiveAction!;
    expect([own.dueSource, own.dueRule?.requirementId]).toEqual([DueDateSource.OPERATOR, "corrective.major"]);
  });

  it("reads a corrective action stored before the due date's source was kept as not recorded", async () => {
    const siteId = await newSite(h());
    const inspection = (await h().client.createInspectionDraft({ ...scoped(siteId), report: report() })).inspection!;
    await sql`INSERT INTO corrective_actions (id, site_id, inspection_id, finding_id, description, found_on, due_on, status, completed_on, created_at)
      VALUES ('ca_old', ${siteId}, ${inspection.id}, 'f1', 'Fix the fence', '2026-11-20', '2026-11-21', 'open', '', '2026-11-20T10:00:00.000Z')`.execute(h().database.db);
    const [old] = (await h().client.listCorrectiveActions(scoped(siteId))).correctiveActions;
    expect([old!.id, old!.dueOn, old!.dueSource, old!.dueRule]).toEqual(["ca_old", "2026-11-21", DueDateSource.UNSPECIFIED, undefined]);
  });
});
