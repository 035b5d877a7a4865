// After a fault run: the process's memory and open handles against its warm level, and its log free of errors.
import type { Test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Spawned } from '../../support/spawn-process.ts';
import { openFds, rssMiB } from './process-stats.ts';
import { sleep, waitFor } from '../../support/deadline.ts';
import { collectGarbage, withoutInspectorLines } from './full-gc.ts';

export interface Footprint {
  rss: number;
  fds: number;
}

export const footprint = (pid: number): Footprint => ({ rss: rssMiB(pid), fds: openFds(pid) });

/**
 * The footprint after a full GC asked for through the process's inspector (full-gc.ts): what it keeps. Without it,
 * resident memory includes garbage V8 collects when it likes, which on a loaded machine moved a backend's level
 * after 50 database restarts by +13.8 MiB against a 12 MiB bound, and by -6 MiB the next time.
 */
export async function collectedFootprint(pid: number, inspectorPort: number): Promise<Footprint> {
  await collectGarbage(inspectorPort);
  return footprint(pid);
}

/**
 * The footprint after a run, once its open handles are back within `fdSlack` of the warm level or `settleMs` has
 * passed, whichever is first. A hammered backend's handles move by a few while connections come and go: taken at
 * one moment 1.7 s after the last cycle, on a loaded machine, a run with no leak read 45 against a warm 42
 * (28 November 2026). A leak stays: it grows with the cycles and never comes back within the slack.
 */
export async function settledFootprint(
  pid: number,
  inspectorPort: number,
  { warm, fdSlack, settleMs }: { warm: Footprint; fdSlack: number; settleMs: number },
): Promise<Footprint> {
  const deadline = Date.now() + settleMs;
  while (openFds(pid) > warm.fds + fdSlack && Date.now() < deadline) await sleep(100);
  return collectedFootprint(pid, inspectorPort);
}

/**
 * V8 sizes its heap over a service's first answers: a backend hammered on `/api/ready` with nothing wrong
 * climbs ~10–15 MiB up to about 15,000 answers, then stays flat. A warm level taken before that (as on a
 * loaded machine, where the fault cycles come round before the answers do) makes the climb look like a leak.
 */
export const WARM_ANSWERS = 20_000;

/**
 * The warm level, taken after a full GC once the client has had at least WARM_ANSWERS answers (it keeps hammering
 * meanwhile).
 */
export async function warmFootprint(pid: number, inspectorPort: number, answers: () => number): Promise<Footprint> {
  await waitFor(() => answers() >= WARM_ANSWERS, {
    timeout: 120_000,
    interval: 50,
    what: `${WARM_ANSWERS} answers before the warm level`,
  });
  return collectedFootprint(pid, inspectorPort);
}

/** Log lines at error level or above (pino level ≥ 50), and anything on stderr: a crash or unhandled rejection. */
export function errorOutput(proc: Spawned): string[] {
  const errors = proc.stdout.filter((line) => {
    try {
      return (JSON.parse(line) as { level?: number }).level! >= 50;
    } catch {
      return line.trim() !== ''; // a production service prints nothing but JSON lines
    }
  });
  return [...errors, ...proc.stderr.filter((line) => line.trim() !== '')];
}

/**
 * Registers the two checks every database fault run ends with: memory and open handles back near the warm
 * level, and the backend still running with nothing at error level. `state` is read when the checks run.
 */
export function testAftermath(
  test: Test,
  state: () => { backend: Spawned; warm: Footprint; after: Footprint },
  { rssSlackMiB = 12, fdSlack = 2 } = {},
): void {
  test(
    `afterwards the backend's memory is back within ${rssSlackMiB} MiB ` +
      `and its open handles within ${fdSlack} of the warm level`,
    () => {
      const { warm, after } = state();
      console.log(
        `    measured: warm ${warm.rss.toFixed(1)} MiB / ${warm.fds} fds → ` +
          `after ${after.rss.toFixed(1)} MiB / ${after.fds} fds`,
      );
      assert.ok(
        after.rss <= warm.rss + rssSlackMiB,
        `resident memory ${after.rss.toFixed(1)} MiB, warm ${warm.rss.toFixed(1)} MiB`,
      );
      assert.ok(after.fds <= warm.fds + fdSlack, `${after.fds} open handles, warm ${warm.fds}`);
    },
  );

  test('the backend is still running with no error-level log line, crash or unhandled rejection', () => {
    const { backend } = state();
    assert.is(backend.child.exitCode, null, 'backend exited');
    assert.equal(withoutInspectorLines(errorOutput(backend)), []);
  });
}
