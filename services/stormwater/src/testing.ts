// The evaluation date engine tests run on, pinned so date-dependent answers never drift.
export const TODAY = "2026-11-24";
