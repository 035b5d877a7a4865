// The modules mutation testing covers (test/mutation/run.ts), each with the test files that pin its behaviour.

export interface MutationModule {
  module: string;
  /** Run one after another, each as its own process; a mutant is killed when one of them fails. */
  tests: string[];
}

export const MODULES: MutationModule[] = [
  { module: 'device/serial/line-splitter.ts', tests: ['device/serial/line-splitter.test.ts'] },
  { module: 'lib/device-protocol.ts', tests: ['lib/device-protocol.test.ts'] },
  { module: 'backend/writer/ack-marks.ts', tests: ['backend/writer/ack-marks.test.ts'] },
  { module: 'lib/seq-ranges.ts', tests: ['lib/seq-ranges.test.ts'] },
  { module: 'device/spool/loss-ledger.ts', tests: ['device/spool/loss-ledger.test.ts'] },
  { module: 'smoke/trailer/line.ts', tests: ['smoke/trailer/line.test.ts', 'smoke/trailer/check.test.ts'] },
  { module: 'lib/health-judge.ts', tests: ['lib/health-judge.test.ts'] },
  // Who gets in: the token-strength rule, the operator's sessions and the limit on guessing (docs/access.md).
  { module: 'lib/token-strength.ts', tests: ['lib/token-strength.test.ts'] },
  { module: 'frontend/operator-session.ts', tests: ['frontend/operator-session.test.ts'] },
  { module: 'frontend/sign-in-limit.ts', tests: ['frontend/sign-in-limit.test.ts'] },
  { module: 'frontend/operator-access.ts', tests: ['frontend/operator-access.test.ts'] },
];
