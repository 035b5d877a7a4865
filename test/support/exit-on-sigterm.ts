// Loaded by test/run.ts into every test file it runs: on SIGTERM (the runner's deadline) the file runs the clean-ups
// registered with onTerminate() and then exits, so the spawn helpers' exit handlers stop the process groups it
// started, which no signal to its own group reaches.
import { runTerminateCleanups } from './on-terminate.ts';

process.once('SIGTERM', () => {
  void runTerminateCleanups().finally(() => process.exit(143));
});
