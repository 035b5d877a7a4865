// Tests whose bodies run side by side: each slow, independent body (a stack, a smoke CLI run with its Chromium)
// starts when the suite starts, at most `limit` at once, and its uvu test awaits it, so a file takes about as long as
// its longest bodies rather than their sum. Bodies start in the order they were registered, after the suite's own
// `before` hooks registered earlier; a body shares nothing another body changes, and `before.each`/`after.each`
// hooks, which run in the tests' turn and not the bodies', must not touch what a body uses.
import type { Test } from 'uvu';
import { createPool } from './run-smoke-cli.ts';

export function sideBySide(test: Test, limit: number) {
  const pool = createPool(limit);
  const starts: Array<() => void> = [];
  test.before(() => {
    for (const start of starts) start();
  });
  return function sideBySideTest(name: string, body: () => Promise<void>) {
    let done: Promise<void> | undefined;
    starts.push(() => {
      done = pool(body);
      done.catch(() => {}); // its test awaits it, and reports the failure there
    });
    test(name, () => done ?? Promise.reject(new Error(`${name}: never started (the suite's before hook ran first)`)));
  };
}
