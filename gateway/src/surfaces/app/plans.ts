// The plan document (SWPPP): POST /app/sites/{id}/plans generates a new version from the site and
// the answer saved for it (@permits/swppp, deterministic) and stores both files; GET
// /app/sites/{id}/plans/{version}.docx and .pdf download a stored version as it was stored.
import type { FastifyInstance } from "fastify";
import { generatePlan } from "@permits/swppp";
import { PlanFormat } from "@permits/proto/sites/v1/sites";
import type { AppDeps } from "../../deps.js";
import { requireSession, requireWritable, type SignedIn } from "./context.js";
import { answerBytes, answerOfSnapshot, todayOf, who } from "./site-records.js";

const FORMATS = { docx: PlanFormat.DOCX, pdf: PlanFormat.PDF } as const;
const FILE = /^(\d{1,6})\.(docx|pdf)$/;

/** A file name safe in a header: the site's name in letters, digits and dashes. */
export function fileStem(name: string): string {
  return name.normalize("NFKD").replace(/[^A-Za-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 60).toLowerCase() || "site";
}

export function planRoutes(app: FastifyInstance, deps: AppDeps): void {
  const { sites, stormwater } = deps.clients;

  app.post("/app/sites/:id/plans", { preHandler: [requireWritable, app.csrfProtection] }, async (req, reply) => {
    const r = req as SignedIn;
    const { id } = req.params as { id: string };
    const w = { ...who(r), siteId: id };
    // The credential gate needs only the site: it is asked while the answer and the versions load.
    const siteAndCredential = sites.getSite(w).then(async ({ site }) => {
      const input = site!.details!.input!;
      return { d: site!.details!, credential: (await stormwater.getCredentialGate({ state: input.state, acres: input.disturbedAcres })).result };
    });
    const [{ d, credential }, saved, { plans }, { rulesChanges }] = await Promise.all([siteAndCredential, sites.getDetermination(w), sites.listPlanVersions(w), sites.listRulesChanges(w)]);
    // The rules changed since the saved answer: regenerating works the answer out again against the
    // data loaded now; once the plan is made from it, the answer is saved (which clears the site's
    // marks) and the plan stored citing it, so a failure before leaves the site marked.
    const fresh = rulesChanges.length ? (await stormwater.determine({ site: d.input })).determination! : undefined;
    const determination = fresh ?? answerOfSnapshot(saved.determination!);
    const { docx, pdf } = await generatePlan({
      site: { name: d.name, address: d.location?.address || null, latitude: d.location?.latitude ?? null, longitude: d.location?.longitude ?? null, operator: d.operator ? { name: d.operator.name, role: d.operator.role || null, phone: d.operator.phone || null, email: d.operator.email || null } : null, contacts: d.contacts.map((c) => ({ name: c.name, role: c.role || null, phone: c.phone || null, email: c.email || null })) },
      determination,
      credential: credential ?? null,
      version: plans.length + 1,
      preparedOn: todayOf(deps),
    });
    const snapshot = fresh ? (await sites.saveDetermination({ ...w, answerJson: answerBytes(fresh) })).determination! : saved.determination!;
    await sites.addPlanVersion({ ...w, docx, pdf, note: `Generated from the answer of dataset ${snapshot.datasetVersion}`, determinationId: snapshot.id });
    return reply.code(303).header("location", `/app/sites/${id}#plans`).send();
  });

  app.get("/app/sites/:id/plans/:file", { preHandler: requireSession }, async (req, reply) => {
    const r = req as SignedIn;
    const { id, file } = req.params as { id: string; file: string };
    const m = FILE.exec(file);
    if (!m) throw Object.assign(new Error("no such file"), { statusCode: 404 });
    const w = { ...who(r), siteId: id };
    const [{ plans }, { site }] = await Promise.all([sites.listPlanVersions(w), sites.getSite(w)]);
    const plan = plans.find((p) => p.version === Number(m[1]));
    if (!plan) throw Object.assign(new Error("no such plan version"), { statusCode: 404 });
    const doc = await sites.getPlanDocument({ ...w, planId: plan.id, format: FORMATS[m[2] as keyof typeof FORMATS] });
    return reply
      .type(doc.contentType)
      .header("content-disposition", `attachment; filename="${fileStem(site!.details!.name)}-swppp-v${plan.version}.${m[2]}"`)
      .send(Buffer.from(doc.content));
  });
}
