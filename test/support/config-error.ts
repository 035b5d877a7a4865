// The message of the ConfigError a settings reader throws, for the services' and lib's config tests.
import * as assert from 'uvu/assert';
import { ConfigError } from '../../lib/config-error.ts';

/** Runs `read`, asserts it threw a one-line ConfigError, and returns its message; fails if it returned instead. */
export function configError(read: () => unknown): string {
  let thrown: unknown;
  let returned: unknown;
  try {
    returned = read();
  } catch (error) {
    thrown = error;
  }
  if (thrown === undefined) assert.unreachable(`accepted, returning ${JSON.stringify(returned)}`);
  assert.instance(thrown, ConfigError, `expected a ConfigError, got ${thrown}`);
  const { message } = thrown as ConfigError;
  assert.not.match(message, /\n/, 'one line');
  return message;
}
