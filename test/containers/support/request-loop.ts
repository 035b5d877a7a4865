// Clients that send requests through the load balancer back to back, without pause, and keep every answer: what
// the swarm tests judge "no request failed" and "which replica answered when" by.
import { setTimeout as sleep } from 'node:timers/promises';

export interface Answer {
  path: string;
  /** 0 when no HTTP answer came (refused, reset, timed out). */
  status: number;
  /** X-Backend-Address: the replica that answered. */
  address: string;
  /** A 200 from /api/health: the release that answered (its `version`); '' otherwise. */
  version: string;
  error: string;
  /** A failure's body, its first line cut to 120 characters: who refused and why (HAProxy's page or a replica's). */
  said: string;
  sentAt: number;
  ms: number;
}

const REQUEST_TIMEOUT_MS = 5000;

/**
 * `clients` loops, each sending the next request as soon as the last one answered, cycling through `paths`;
 * `headers` go with every request (the read token, for /api/readings).
 */
export function createRequestLoop(base: string, paths: string[], clients = 2, headers: Record<string, string> = {}) {
  const answers: Answer[] = [];
  let running = true;

  async function one(path: string): Promise<Answer> {
    const sentAt = Date.now();
    try {
      const response = await fetch(`${base}${path}`, { headers, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
      const body = await response.text();
      const address = response.headers.get('x-backend-address') ?? '';
      const version = path === '/api/health' && response.status === 200 ? versionOf(body) : '';
      const said = response.status === 200 ? '' : firstLine(body);
      return { path, status: response.status, address, version, error: '', said, sentAt, ms: Date.now() - sentAt };
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      const reason = cause ?? (error as Error).name;
      return { path, status: 0, address: '', version: '', error: reason, said: '', sentAt, ms: Date.now() - sentAt };
    }
  }

  async function client(offset: number): Promise<void> {
    for (let i = offset; running; i++) {
      answers.push(await one(paths[i % paths.length]!));
      // A yield between requests, never a pause: the event loop must get to the test's own awaits.
      await sleep(0);
    }
  }

  const loops = Array.from({ length: clients }, (_, i) => client(i));
  return {
    answers,
    /** Stops after the requests in flight; every answer, in the order they came. */
    async stop(): Promise<Answer[]> {
      running = false;
      await Promise.all(loops);
      return answers;
    },
  };
}

const firstLine = (body: string) => (body.split('\n').find((line) => line.trim()) ?? '').trim().slice(0, 120);

function versionOf(body: string): string {
  try {
    const { version } = JSON.parse(body) as { version?: unknown };
    return typeof version === 'string' ? version : '';
  } catch {
    return '';
  }
}

/** The answers that are failures: anything but 200. */
export const failures = (answers: Answer[]) => answers.filter((answer) => answer.status !== 200);

/** A line per kind of failure with its count and first time, for an assertion message. */
export function describeFailures(answers: Answer[]): string {
  const kinds = new Map<string, { count: number; first: number }>();
  for (const answer of failures(answers)) {
    const from = answer.status ? ` from ${answer.address || 'the lb'}` : '';
    const key = `${answer.path} → ${answer.status || answer.error}${from}${answer.said ? ` "${answer.said}"` : ''}`;
    const kind = kinds.get(key) ?? { count: 0, first: answer.sentAt };
    kind.count++;
    kinds.set(key, kind);
  }
  return [...kinds]
    .map(([key, { count, first }]) => `${key}: ${count} (first at ${new Date(first).toISOString()})`)
    .join('\n');
}
