// Strict ISO 8601 date-times, as readings carry them and `before=` takes them: a calendar date, a time and a zone.
// Date.parse alone is too lenient (it takes 2026-02-30 as 2 March, and a time without a zone as local time).
// Every reading stored goes through here, so the date is checked by arithmetic rather than through a Date.

const ISO = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-](\d{2}):(\d{2}))$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!;
}

/** The instant `text` names, or undefined when it is not a valid ISO 8601 date-time with a zone (Z or ±hh:mm). */
export function parseIsoTime(text: string): Date | undefined {
  const m = ISO.exec(text);
  if (!m) return undefined;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = m[6] === undefined ? 0 : Number(m[6]);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const offsetHours = m[9] === undefined ? 0 : Number(m[9]);
  const offsetMinutes = m[10] === undefined ? 0 : Number(m[10]);
  if (offsetHours > 23 || offsetMinutes > 59) return undefined;
  // The first three digits of the fraction: milliseconds, the rest cut off (not rounded).
  const ms = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  const offset = (m[8] === 'Z' ? 0 : (m[8]!.startsWith('-') ? -1 : 1) * (offsetHours * 60 + offsetMinutes)) * 60_000;
  const time = utc(year, month - 1, day) + ((hour * 60 + minute) * 60 + second) * 1000 + ms - offset;
  return Number.isFinite(time) ? new Date(time) : undefined;
}

/** Midnight UTC of a calendar day; Date.UTC alone reads years 0–99 as 1900–1999, hence setUTCFullYear for those. */
function utc(year: number, monthIndex: number, day: number): number {
  if (year >= 100) return Date.UTC(year, monthIndex, day);
  return new Date(0).setUTCFullYear(year, monthIndex, day);
}
