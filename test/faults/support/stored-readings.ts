// Checks what was stored (storedInDatabase: the database, in insertion order) against what was written: every line,
// in order, once, in one device session.
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
