// Sets of sequence numbers as sorted, disjoint, inclusive [from, to] ranges: what a device declares lost, and what the
// backend has recorded of it, without one entry per reading.
import type { SeqRange } from './device-protocol.ts';

/** How many sequence numbers `ranges` hold. */
export function rangesSize(ranges: readonly SeqRange[]): number {
  return ranges.reduce((sum, [from, to]) => sum + to - from + 1, 0);
}

/** `ranges` with `seq` added, joined to a neighbour it touches (`ranges` sorted and disjoint; a new array). */
export function addSeq(ranges: readonly SeqRange[], seq: number): SeqRange[] {
  return addRange(ranges, [seq, seq]);
}

/** `ranges` with `[from, to]` added, overlapping or touching ranges joined (sorted and disjoint; a new array). */
export function addRange(ranges: readonly SeqRange[], [from, to]: SeqRange): SeqRange[] {
  const out: SeqRange[] = [];
  let merged: SeqRange = [from, to];
  let placed = false;
  for (const [a, b] of ranges) {
    if (b + 1 < merged[0]) out.push([a, b]);
    else if (a > merged[1] + 1) {
      if (!placed) out.push(merged);
      placed = true;
      out.push([a, b]);
    } else merged = [Math.min(a, merged[0]), Math.max(b, merged[1])];
  }
  if (!placed) out.push(merged);
  return out;
}

/** What of `ranges` lies outside every range of `covered` (both sorted and disjoint). */
export function subtractRanges(ranges: readonly SeqRange[], covered: readonly SeqRange[]): SeqRange[] {
  const out: SeqRange[] = [];
  for (const [from, to] of ranges) {
    let start = from;
    for (const [a, b] of covered) {
      if (b < start || a > to) continue;
      if (a > start) out.push([start, a - 1]);
      start = b + 1;
      if (start > to) break;
    }
    if (start <= to) out.push([start, to]);
  }
  return out;
}

/** The ranges of `seqs` (ascending), each run of consecutive numbers one range. */
export function runsOf(seqs: Iterable<number>): SeqRange[] {
  const out: SeqRange[] = [];
  for (const seq of seqs) {
    const last = out.at(-1);
    if (last && seq === last[1] + 1) last[1] = seq;
    else out.push([seq, seq]);
  }
  return out;
}
