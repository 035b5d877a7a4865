// Waits, under one deadline, until every service answers 200 on its readiness address; a crash ends the wait at once.
import { setTimeout as sleep } from 'node:timers/promises';
import { httpGet } from '../../lib/http-get.ts';
import type { StackChild } from './child.ts';
import { stackError } from './error.ts';

export interface ReadyTarget {
  child: StackChild;
  url: string;
}

const POLL_MS = 250;
const REQUEST_TIMEOUT_MS = 2000;

/** `until` is the stack's overall deadline (epoch ms); `limitMs` the setting it came from, for the message. */
export async function waitUntilReady(
  targets: ReadyTarget[],
  watched: StackChild[],
  until: number,
  limitMs: number,
): Promise<void> {
  const last = new Map<ReadyTarget, string>();
  const pending = new Set(targets);
  while (pending.size > 0) {
    for (const child of watched) {
      if (child.exit) {
        const how = child.exit.code !== null ? `code ${child.exit.code}` : `signal ${child.exit.signal}`;
        throw stackError(child.name, `exited (${how}) before the stack was ready`, child.lastLines());
      }
    }
    if (Date.now() >= until) {
      const target = [...pending][0]!;
      const seen = last.get(target) ?? 'no answer yet';
      throw stackError(
        target.child.name,
        `not ready within ${limitMs} ms (${target.url}: ${seen})`,
        target.child.lastLines(),
      );
    }
    await Promise.all(
      [...pending].map(async (target) => {
        const answer = await probe(target.url);
        if (answer === true) pending.delete(target);
        else last.set(target, answer);
      }),
    );
    if (pending.size > 0) await sleep(POLL_MS);
  }
}

/** True on HTTP 200; otherwise what was seen, for the "never ready" reason. */
async function probe(url: string): Promise<true | string> {
  const got = await httpGet(url, { timeout: REQUEST_TIMEOUT_MS });
  if (!got.reached) return got.reason;
  return got.status === 200 ? true : `HTTP ${got.status} ${got.body.replace(/\s+/g, ' ').slice(0, 160)}`;
}
