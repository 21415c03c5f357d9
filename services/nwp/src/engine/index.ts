// The pure nwp engine: no I/O, no clock (the evaluation date is an argument). dataset.ts loads the files; service.ts wraps results.
import { invalidArgument } from "@permits/rules";
import type { Dataset } from "./compile.js";
import { decide } from "./determine.js";
import type { DeterminationOut, NormalizedInput, ProjectInputLike } from "./types.js";
import { validateProject, violationMessage } from "./validate.js";

export { compileDataset, CERTIFIER_NOT_HELD } from "./compile.js";
export type { Dataset, CompiledPermit, CompiledDistrict, CompiledState, CompiledActivity } from "./compile.js";
export { decide } from "./determine.js";
export { validateProject, violationMessage } from "./validate.js";
export type { ValidationResult } from "./validate.js";
export * from "./types.js";

/** Validates then decides; invalid input throws ConnectError InvalidArgument with every violation. */
export function determine(ds: Dataset, input: ProjectInputLike | undefined | null, today: string): { input: NormalizedInput; determination: DeterminationOut } {
  const v = validateProject(ds, input);
  if (!v.ok) throw invalidArgument(violationMessage(v.violations), v.violations);
  return { input: v.input, determination: decide(ds, v.input, today) };
}
