// Words and numbers as the page shows them: clock times, durations, ages, counts, sizes; pure, tested in Node.

const pad = (n) => String(n).padStart(2, '0');

/** Local wall-clock time, HH:MM:SS. */
export function formatClock(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '—' : `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** 42 s · 4 min 12 s · 3 h 05 min · 2 d 4 h */
export function formatDuration(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ${pad(Math.floor((s % 3600) / 60))} min`;
  return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
}

export function formatAge(ms) {
  return ms < 1500 ? 'just now' : `${formatDuration(ms / 1000)} ago`;
}

/** 1 reading · 12 readings · 1,234 readings */
export function formatCount(n, one, many = `${one}s`) {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

/** 512 B · 3.4 KiB · 12.0 MiB */
export function formatBytes(n) {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** Decimals that show every number of a series as written, so its labels line up (21.00, 21.05, 20.90); at most 4. */
export function decimalsFor(numbers) {
  let decimals = 0;
  for (const n of numbers) {
    const text = String(Math.abs(n));
    if (text.includes('e')) continue;
    decimals = Math.max(decimals, text.split('.')[1]?.length ?? 0);
  }
  return Math.min(decimals, 4);
}

/** A chart label: fixed decimals, or 4 significant digits where fixed notation would be unreadable. */
export function formatNumber(n, decimals) {
  const size = Math.abs(n);
  if (size !== 0 && (size >= 1e9 || size < 1e-4)) return n.toPrecision(4);
  return n.toFixed(decimals);
}

/**
 * A reading's value as the page shows it: whole, or cut by the frontend and said so (`abc… (8,000 characters)`).
 * @param {{ value: string, cutFrom?: number }} reading
 */
export function formatValue(reading) {
  return reading.cutFrom === undefined
    ? reading.value
    : `${reading.value} (${formatCount(reading.cutFrom, 'character')})`;
}
