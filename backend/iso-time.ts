// Strict ISO 8601 date-times, as readings carry them and `before=` takes them: a calendar date, a time and a zone.
// Date.parse alone is too lenient (it takes 2026-02-30 as 2 March, and a time without a zone as local time).

const ISO = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-](\d{2}):(\d{2}))$/;

/** The instant `text` names, or undefined when it is not a valid ISO 8601 date-time with a zone (Z or ±hh:mm). */
export function parseIsoTime(text: string): Date | undefined {
  const m = ISO.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second = 0] = m.slice(1, 7).map((part) => Number(part ?? 0)) as number[];
  const ms = Number(`0.${m[7] ?? '0'}`) * 1000;
  // setUTCFullYear, not Date.UTC: that one reads years 0–99 as 1900–1999.
  const calendar = new Date(0);
  calendar.setUTCFullYear(year!, month! - 1, day!);
  if (calendar.getUTCMonth() !== month! - 1 || calendar.getUTCDate() !== day!) return undefined;
  if (hour! > 23 || minute! > 59 || second > 59) return undefined;
  const offsetHours = Number(m[9] ?? 0);
  const offsetMinutes = Number(m[10] ?? 0);
  if (offsetHours > 23 || offsetMinutes > 59) return undefined;
  const offset = (m[8] === 'Z' ? 0 : (m[8]!.startsWith('-') ? -1 : 1) * (offsetHours * 60 + offsetMinutes)) * 60_000;
  const time = calendar.setUTCHours(hour!, minute!, second, Math.floor(ms)) - offset;
  return Number.isFinite(time) ? new Date(time) : undefined;
}
