// Checks what was stored (storedInDatabase: the database, in insertion order) against what was written: every line,
// in order, once, in one device session (readingProblems) or across the sessions of a restarted device
// (countReadings).
import type { Stored } from '../../support/device-services.ts';

/**
 * One line per problem (none: everything written was stored, in order, exactly once); `deviceId`: only its readings.
 */
export function readingProblems(all: Stored[], written: string[], deviceId?: string): string[] {
  const stored = all.filter((r) => deviceId === undefined || r.deviceId === deviceId);
  const problems: string[] = [];
  const sessions = new Set(stored.map((r) => r.session));
  if (sessions.size !== 1) problems.push(`${sessions.size} device sessions, expected 1`);
  const values = stored.map((r) => r.value);
  const seen = new Set<string>();
  const doubled = values.filter((v) => seen.has(v) || !seen.add(v));
  if (doubled.length) problems.push(`${doubled.length} stored twice, first ${doubled[0]}`);
  const missing = written.filter((line) => !seen.has(line));
  if (missing.length) problems.push(`${missing.length} of ${written.length} lost, first ${missing[0]}`);
  const order = new Map(written.map((line, i) => [line, i]));
  const firstOutOfOrder = values.findIndex((v, i) => i > 0 && (order.get(v) ?? -1) < (order.get(values[i - 1]!) ?? -1));
  if (firstOutOfOrder > 0)
    problems.push(`out of order at ${values[firstOutOfOrder]} (after ${values[firstOutOfOrder - 1]})`);
  const badSeq = stored.findIndex((r, i) => r.seq !== i + 1);
  if (badSeq >= 0) problems.push(`sequence number ${stored[badSeq]!.seq} at position ${badSeq + 1}`);
  return problems;
}

export interface ReadingCounts {
  written: number;
  stored: number;
  /** Stored readings beyond the first of each line written. */
  duplicated: number;
  /** Lines written and not stored. */
  lost: number;
  sessions: number;
  /** One line per problem; none: every line stored once, each session numbered 1…n in the order written. */
  problems: string[];
}

/**
 * Like readingProblems, across device sessions (a restarted device is a new one): every line written is stored
 * exactly once, nothing else is, and within each session `seq` runs 1, 2, 3 … in the order the lines were written.
 */
export function countReadings(stored: Stored[], written: string[]): ReadingCounts {
  const order = new Map(written.map((line, i) => [line, i]));
  const copies = new Map<string, number>();
  for (const { value } of stored) copies.set(value, (copies.get(value) ?? 0) + 1);
  const duplicated = [...copies.values()].reduce((sum, n) => sum + n - 1, 0);
  const missing = written.filter((line) => !copies.has(line));
  const unknown = stored.filter(({ value }) => !order.has(value));
  const problems: string[] = [];
  if (duplicated) problems.push(`${duplicated} stored more than once, first ${[...copies].find(([, n]) => n > 1)![0]}`);
  if (missing.length) problems.push(`${missing.length} of ${written.length} lost, first ${missing[0]}`);
  if (unknown.length) problems.push(`${unknown.length} stored that were never written, first ${unknown[0]!.value}`);
  const sessions = new Map<string, Stored[]>();
  for (const reading of stored) sessions.set(reading.session, [...(sessions.get(reading.session) ?? []), reading]);
  for (const [session, readings] of sessions) {
    const bySeq = [...readings].sort((a, b) => a.seq - b.seq);
    const gap = bySeq.findIndex((r, i) => r.seq !== i + 1);
    if (gap >= 0) problems.push(`session ${session}: seq ${bySeq[gap]!.seq} at position ${gap + 1}`);
    const back = bySeq.findIndex(
      (r, i) => i > 0 && (order.get(r.value) ?? -1) < (order.get(bySeq[i - 1]!.value) ?? -1),
    );
    if (back > 0) problems.push(`session ${session}: ${bySeq[back]!.value} (seq ${bySeq[back]!.seq}) written earlier`);
  }
  return {
    written: written.length,
    stored: stored.length,
    duplicated,
    lost: missing.length,
    sessions: sessions.size,
    problems,
  };
}
