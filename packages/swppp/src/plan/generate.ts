// One call for the app: the model and both files of a plan version.
import { renderPlanDocx } from "./docx.js";
import { buildPlanModel, type PlanInput } from "./model.js";
import type { PlanModel } from "./model-types.js";
import { renderPlanPdf } from "./pdf.js";

export async function generatePlan(input: PlanInput): Promise<{ model: PlanModel; docx: Uint8Array; pdf: Uint8Array }> {
  const model = buildPlanModel(input);
  const [docx, pdf] = await Promise.all([renderPlanDocx(model), renderPlanPdf(model)]);
  return { model, docx, pdf };
}
