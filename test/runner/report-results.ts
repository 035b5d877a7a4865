// Loaded by test/run.ts into each test file it runs in a process of its own: when the process exits, however it
// exits, its uvu suite counts go to the runner as one record on the results channel.
import { takeChannel, writeRecord } from './results-channel.ts';
import { tallyUvuSuites } from './uvu-suites.ts';

if (takeChannel()) {
  const tally = tallyUvuSuites();
  const file = process.argv[1] ?? '';
  process.on('exit', () => writeRecord({ kind: 'done', file, suites: tally.suites, queued: tally.queued }));
}
