// How a new declaration joins a session's recorded lost ranges: the recorded ones near it and the fresh parts of it
// become merged ranges, so that the ranges kept per session stay few and disjoint. Pure: loss-records.ts does the I/O.
import type { SeqRange } from '../../lib/device-protocol.ts';

/** A recorded range as loss-records.ts keeps it: which numbers, and how many of them were never stored. */
export interface LossPart {
  from: number;
  to: number;
  lost: number;
}

/** A merged range to write, and the recorded ranges it replaces (by their `from`). */
export interface MergedLoss extends LossPart {
  replaces: number[];
}

/**
 * Merges `recorded` (sorted by `from`) with `fresh` (sorted, disjoint, and outside every recorded one) where they
 * overlap or touch. A recorded range inside the one before it (left by a write that failed half way) adds nothing:
 * its numbers are counted in the wider one. Only what changes is returned; a recorded range left alone is not.
 */
export function mergeLosses(recorded: readonly LossPart[], fresh: readonly LossPart[]): MergedLoss[] {
  const parts = [
    ...recorded.map((part) => ({ ...part, recorded: true })),
    ...fresh.map((part) => ({ ...part, recorded: false })),
  ].sort((a, b) => a.from - b.from || b.to - a.to);
  const out: MergedLoss[] = [];
  let current: (MergedLoss & { changed: boolean }) | undefined;
  for (const part of parts) {
    if (current && part.from <= current.to + 1) {
      if (part.to > current.to) current.lost += part.lost;
      current.to = Math.max(current.to, part.to);
      if (part.recorded) current.replaces.push(part.from);
      current.changed = true;
      continue;
    }
    if (current?.changed) out.push(withoutFlag(current));
    const { from, to, lost } = part;
    current = { from, to, lost, replaces: part.recorded ? [from] : [], changed: !part.recorded };
  }
  if (current?.changed) out.push(withoutFlag(current));
  return out;
}

function withoutFlag({ from, to, lost, replaces }: MergedLoss & { changed: boolean }): MergedLoss {
  return { from, to, lost, replaces };
}

/** Counts, as `seqs` come in ascending order, how many each range of `ranges` (sorted, disjoint) holds: one walk. */
export function createRangeCounter(ranges: readonly SeqRange[]) {
  const counts = ranges.map(() => 0);
  let r = 0;
  return {
    counts,
    add(seq: number) {
      while (r < ranges.length && ranges[r]![1] < seq) r += 1;
      if (r < ranges.length && seq >= ranges[r]![0]) counts[r]! += 1;
    },
  };
}

/** How many of `seqs` (ascending) each range of `ranges` (sorted, disjoint) holds, in one walk. */
export function countWithin(ranges: readonly SeqRange[], seqs: readonly number[]): number[] {
  const counter = createRangeCounter(ranges);
  for (const seq of seqs) counter.add(seq);
  return counter.counts;
}
