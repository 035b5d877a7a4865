// Counts each uvu suite as uvu runs it, from uvu's own queue. uvu 0.5 keeps what it will run in
// globalThis.UVU_QUEUE, one group per file (`[name, ...suiteRunners]`, `test.run()` pushes a runner), and each runner
// resolves to `[errors, passed, skipped, total]`. A queue installed before uvu loads is the one uvu uses
// (`UVU_QUEUE = UVU_QUEUE || []`), so every runner pushed into it is wrapped here to count its result.
import type { FileTally } from './results-channel.ts';

type SuiteRunner = () => Promise<[unknown, number, number, number]>;
type Group = unknown[];

export interface UvuTally extends FileTally {
  /** Empties uvu's queue and the counts, for the next file of a batch. */
  reset(): void;
}

export function tallyUvuSuites(): UvuTally {
  const scope = globalThis as { UVU_QUEUE?: Group[] };
  if (scope.UVU_QUEUE) throw new Error('uvu was loaded before its suites could be counted');
  const tally: UvuTally = {
    suites: [],
    queued: 0,
    reset() {
      queue.length = 0;
      tally.suites = [];
      tally.queued = 0;
    },
  };
  const counted =
    (run: SuiteRunner): SuiteRunner =>
    async () => {
      const result = await run();
      const [errors, passed, skipped, total] = result;
      tally.suites.push({ passed, skipped, total, ...(errors === true && passed < total && { hookThrew: true }) });
      return result;
    };
  const watch = (group: Group) => {
    group.push = (...items: unknown[]) => {
      tally.queued += items.filter((item) => typeof item === 'function').length;
      const wrapped = items.map((item) => (typeof item === 'function' ? counted(item as SuiteRunner) : item));
      return Array.prototype.push.apply(group, wrapped);
    };
    return group;
  };
  const queue: Group[] = [];
  queue.push = (...groups: Group[]) => Array.prototype.push.apply(queue, groups.map(watch));
  scope.UVU_QUEUE = queue;
  return tally;
}
