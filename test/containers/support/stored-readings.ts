// The device's readings as the stack stored them, read through the load balancer, and the fault suite's count of
// them: within each session seq must run 1, 2, 3 … with no gap (a reading lost) and no duplicate (stored twice).
import * as assert from 'uvu/assert';
import { READ_TOKEN } from './deploy-secrets.ts';

/** The stack's read token (its SECRETS_DIR): outside local mode /api/readings answers only with it. */
export const READ_AUTH = { authorization: `Bearer ${READ_TOKEN}` };

export interface Reading {
  session: string;
  seq: number;
  timestamp: string;
  receivedAt: string;
}

/** Every stored reading of the stack's device, through the load balancer, oldest first. */
export async function storedReadings(lb: string): Promise<Reading[]> {
  const response = await fetch(`${lb}/api/readings?deviceId=device&limit=1000`, { headers: READ_AUTH });
  assert.is(response.status, 200);
  return ((await response.json()) as { readings: Reading[] }).readings.reverse();
}

/** One line per problem: within each session seq must run 1, 2, 3 … with no gap and no duplicate. */
export function sequenceProblems(readings: Reading[]): string[] {
  const sessions = new Map<string, number[]>();
  for (const { session, seq } of readings) sessions.set(session, [...(sessions.get(session) ?? []), seq]);
  const problems: string[] = [];
  for (const [session, seqs] of sessions) {
    const sorted = [...seqs].sort((a, b) => a - b);
    const wrong = sorted.findIndex((seq, i) => seq !== i + 1);
    if (wrong >= 0) problems.push(`session ${session}: seq ${sorted[wrong]} at position ${wrong + 1}`);
  }
  return problems;
}
