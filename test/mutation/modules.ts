// The modules mutation testing covers (test/mutation/run.ts), each with the test files that pin its behaviour.

export interface MutationModule {
  module: string;
  /** Run one after another, each as its own process; a mutant is killed when one of them fails. */
  tests: string[];
}

export const MODULES: MutationModule[] = [
  { module: 'device/line-splitter.ts', tests: ['device/line-splitter.test.ts'] },
  { module: 'lib/device-protocol.ts', tests: ['lib/device-protocol.test.ts'] },
  { module: 'backend/ack-marks.ts', tests: ['backend/ack-marks.test.ts'] },
  { module: 'lib/seq-ranges.ts', tests: ['lib/seq-ranges.test.ts'] },
  { module: 'device/loss-ledger.ts', tests: ['device/loss-ledger.test.ts'] },
  { module: 'smoke/trailer/line.ts', tests: ['smoke/trailer/line.test.ts', 'smoke/trailer/check.test.ts'] },
  { module: 'lib/health-judge.ts', tests: ['lib/health-judge.test.ts'] },
];
