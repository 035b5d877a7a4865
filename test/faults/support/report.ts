// One line summarising how late readiness followed each kind of change (median and max per kind).
import type { Verdict } from './state-timeline.ts';

export function describeLags(lags: Verdict['lags']): string {
  const byKind = new Map<string, number[]>();
  for (const { what, ms } of lags) {
    const kind = what.replace(/\s*\d+$/, '');
    byKind.set(kind, [...(byKind.get(kind) ?? []), ms]);
  }
  return [...byKind]
    .map(([kind, values]) => {
      const sorted = [...values].sort((a, b) => a - b);
      const median = sorted[sorted.length >> 1]!;
      const max = Math.round(sorted.at(-1)!);
      return `${kind} → flipped within median ${Math.round(median)} ms, max ${max} ms (${values.length}×)`;
    })
    .join('; ');
}
