// The modules mutation testing covers (test/mutation/run.ts), each with the test files that pin its behaviour.

export interface MutationModule {
  module: string;
  /** Run one after another, each as its own process; a mutant is killed when one of them fails. */
  tests: string[];
}

export const MODULES: MutationModule[] = [
  { module: 'device/line-splitter.ts', tests: ['device/line-splitter.test.ts'] },
];
