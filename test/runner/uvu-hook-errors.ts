// uvu 0.5 drops the error of a suite's `before` hook: its runner returns from a `finally`, so the suite's tests are
// counted failed with no word of why. The test files' bundles get uvu through this module (compile-tests.ts points
// their `uvu` here), which prints such an error whole, into the file's output, before uvu drops it.
import * as uvu from 'uvu';
import type { Callback, Test } from 'uvu';

export { exec } from 'uvu';

function withBeforeErrors<T>(test: Test<T>, name: string): Test<T> {
  const { before } = test;
  const guarded =
    (hook: Callback<T>): Callback<T> =>
    async (context) => {
      try {
        await hook(context);
      } catch (error) {
        console.error(`\nuvu suite ${name ? `"${name}"` : 'of the file'}: its before hook threw`, error);
        throw error;
      }
    };
  test.before = Object.assign((hook: Callback<T>) => before(guarded(hook)), { each: before.each });
  return test;
}

export const suite: typeof uvu.suite = (name, context) => withBeforeErrors(uvu.suite(name, context), name ?? '');
export const test = withBeforeErrors(uvu.test, '');
