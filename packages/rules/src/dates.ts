// Calendar dates as the contract writes them: yyyy-mm-dd, compared as text.
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A real calendar date in yyyy-mm-dd (2026-02-30 is refused). */
export function isCalendarDate(s: string): boolean {
  const m = DATE.exec(s);
  if (!m) return false;
  const y = Number(m[1]), mo = Number(m[2]), d = Number(m[3]);
  if (mo < 1 || mo > 12 || d < 1) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1];
  return d <= days;
}

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** "2026-02-28" -> "28 February 2026". */
export function longDate(d: string): string {
  return `${Number(d.slice(8, 10))} ${MONTHS[Number(d.slice(5, 7)) - 1]} ${d.slice(0, 4)}`;
}

/** The ways a text may write a yyyy-mm-dd date: "March 15, 2026", "Mar. 15, 2026", "15 March 2026", "3/15/2026"... */
export function dateForms(d: string): string[] {
  const [y, m, day] = d.split("-").map(Number);
  const month = MONTHS[m - 1];
  // "Sept." is the one common abbreviation longer than three letters (AP style).
  const short = m === 9 ? ["Sep", "Sept"] : [month.slice(0, 3)];
  return [d, `${month} ${day}, ${y}`, ...short.flatMap((s) => [`${s}. ${day}, ${y}`, `${s} ${day}, ${y}`]), `${day} ${month} ${y}`, `${m}/${day}/${y}`, `${String(m).padStart(2, "0")}/${String(day).padStart(2, "0")}/${y}`];
}
