// The values document 1 itself fixes. They are contract: served as document 1 states them, at
// their citation's confidence (unverified until read), whatever basis the data holds for them.
// The rule of caution (common/caution.ts) never withholds them.

/** Coverage is required at or above this many acres disturbed (document 1, coverage rule). */
export const COVERAGE_THRESHOLD_ACRES = 1;

/** Open at once above this many acres takes the shorter stabilization deadline. */
export const OPEN_AT_ONCE_ACRES = 5;

/** Days to complete stabilization: more than five acres open at once 7, five or fewer 14; a sensitive receiving water stated true 7. */
export const STABILIZATION_DAYS = { over5: 7, standard: 14, sensitive: 7 } as const;

/** Where a receiving-water input is not stated: the stricter of the values it turns on. */
export const STABILIZATION_DAYS_UNSTATED = Math.min(STABILIZATION_DAYS.standard, STABILIZATION_DAYS.sensitive);

const FIXED_REQUIREMENTS = new Set(["stabilization.complete"]);

/** Is this requirement's value fixed by document 1? */
export function fixedByDocument1(requirementId: string): boolean {
  return FIXED_REQUIREMENTS.has(requirementId);
}
