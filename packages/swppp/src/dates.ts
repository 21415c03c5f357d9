// Calendar arithmetic on yyyy-mm-dd dates, in UTC so a date never shifts with the host's zone.
// Nothing here reads the clock: "today" is always an input.
import { isCalendarDate } from "@permits/rules";

function parts(d: string): [number, number, number] {
  if (!isCalendarDate(d)) throw new RangeError(`not a calendar date (yyyy-mm-dd): ${JSON.stringify(d)}`);
  return [Number(d.slice(0, 4)), Number(d.slice(5, 7)), Number(d.slice(8, 10))];
}

function format(t: number): string {
  return new Date(t).toISOString().slice(0, 10);
}

export function addDays(d: string, n: number): string {
  const [y, m, day] = parts(d);
  return format(Date.UTC(y, m - 1, day + n));
}

/** The same day n months on, or the month's last day where it is shorter (31 January + 1 = 28/29 February). */
export function addMonths(d: string, n: number): string {
  const [y, m, day] = parts(d);
  const last = new Date(Date.UTC(y, m - 1 + n + 1, 0)).getUTCDate();
  return format(Date.UTC(y, m - 1 + n, Math.min(day, last)));
}

/** The next Monday-to-Friday after d (public holidays are not known here). */
export function nextWeekday(d: string): string {
  let next = addDays(d, 1);
  for (;;) {
    const [y, m, day] = parts(next);
    const wd = new Date(Date.UTC(y, m - 1, day)).getUTCDay();
    if (wd !== 0 && wd !== 6) return next;
    next = addDays(next, 1);
  }
}

/** Hours counted from a date with no time of day: the last calendar day the period can end on. */
export function daysForHours(hours: number): number {
  return Math.ceil(hours / 24);
}

export function assertDate(d: string, field: string): void {
  if (!isCalendarDate(d)) throw new RangeError(`${field} must be a calendar date (yyyy-mm-dd), got ${JSON.stringify(d)}`);
}

export function maxDate(dates: readonly string[]): string | null {
  let best: string | null = null;
  for (const d of dates) if (best === null || d > best) best = d;
  return best;
}
