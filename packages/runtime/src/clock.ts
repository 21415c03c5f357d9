import { ConfigError } from "./config.js";
import { isCalendarDate } from "@permits/rules";

// One clock for the whole system, so tests can set time instead of sleeping.
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that moves only when told to; for tests. */
export class ManualClock implements Clock {
  constructor(private ms: number) {}
  now(): number {
    return this.ms;
  }
  set(ms: number): void {
    this.ms = ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

const DAY_MS = 86_400_000;

/**
 * The clock's UTC calendar date as yyyy-mm-dd: the evaluation date of the engines. The text is
 * remembered per day, so a request costs a division, not a Date.
 */
export function dateOf(clock: Clock): () => string {
  let day = Number.NaN;
  let text = "";
  return () => {
    const d = Math.floor(clock.now() / DAY_MS);
    if (d !== day) {
      day = d;
      text = new Date(d * DAY_MS).toISOString().slice(0, 10);
    }
    return text;
  };
}

/**
 * The engines' evaluation date: EVALUATION_DATE (yyyy-mm-dd) when set, so an answer can be
 * reproduced as of a day and tests never drift with the calendar; otherwise the clock's UTC date.
 */
export function evaluationDateOf(env: NodeJS.ProcessEnv, clock: Clock): () => string {
  const fixed = env.EVALUATION_DATE;
  if (fixed === undefined || fixed === "") return dateOf(clock);
  if (!isCalendarDate(fixed)) throw new ConfigError(`invalid configuration: EVALUATION_DATE: must be a calendar date, yyyy-mm-dd (got "${fixed}")`);
  return () => fixed;
}
